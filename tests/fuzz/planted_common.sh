# Sourced by the planted-build self-tests: checks the two binaries named on their command line
# and skips (exit 77) when the planted build is missing or predates the test; sets $planted,
# $normal and a temporary $out removed on exit.
planted=${1:?usage: $(basename "$0") PLANTED_SKYSIM NORMAL_SKYSIM}
normal=${2:?usage: $(basename "$0") PLANTED_SKYSIM NORMAL_SKYSIM}
if [[ ! -x $planted ]]; then
  echo "no planted build at $planted; skipping"
  exit 77
fi
# A planted build older than fuzz-record (and the located violations) cannot pass; say so.
probe=$("$planted" fuzz-record /nonexistent.yaml --seed 1 --events /dev/null 2>&1)
if [[ $probe == *subcommand* ]]; then
  echo "the planted build at $planted predates this test; rebuild it; skipping"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
