# Sourced by the planted-build self-tests: checks the two binaries named on their command line
# and skips (exit 77) when the planted build is missing or predates the test; sets $planted,
# $normal and a temporary $out removed on exit.
planted=${1:?usage: $(basename "$0") PLANTED_SKYSIM NORMAL_SKYSIM}
normal=${2:?usage: $(basename "$0") PLANTED_SKYSIM NORMAL_SKYSIM}
# scripts/test-suite.sh (CI=true) builds the planted preset first: there a missing build is a
# broken suite, not a machine that cannot run the test.
skip_or_fail() {
  if [[ ${CI:-} == true ]]; then echo "FAIL (CI): $1"; exit 1; fi
  echo "SKIP: $1"
  exit 77
}
if [[ ! -x $planted ]]; then
  skip_or_fail "no planted build at $planted (cmake --preset planted && cmake --build --preset planted --target skysim)"
fi
# A planted build older than fuzz-record (and the located violations) cannot pass; say so.
probe=$("$planted" fuzz-record /nonexistent.yaml --seed 1 --events /dev/null 2>&1)
if [[ $probe == *subcommand* ]]; then
  skip_or_fail "the planted build at $planted predates this test; rebuild it"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
