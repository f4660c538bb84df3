# Sourced by the scripts that put the April replay (the dataplane kind) beside its composition
# (compare-april-composition.sh, compare-april-deploys.sh, bench-april-composition.sh): the
# replay as the composition runs, i.e. one east host at full size, the batch client at the
# Monday rate from EPOCH on, and the west's user sources off, so that the users' latency
# histograms are the east host's. Usage: april_east_replay EPOCH; then "${april_east_replay[@]}".
april_east_replay() {
  april_east_replay=(--set scale=1 --set sources.batch-service.start="$1"
    --set sources.batch-service.rate=0.05/s
    --set sources.users-west.enabled=false --set sources.profiles-west.enabled=false)
}
