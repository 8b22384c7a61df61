#!/usr/bin/env bash
# The Temporal time-skipping test server for the workflow tests, run from Maven Central's jars.
#
# The TypeScript SDK's TestWorkflowEnvironment.createTimeSkipping() downloads a native build of
# this server from a host this machine cannot reach. That build is the Java SDK's test server
# (io.temporal.testserver.TestServer in io.temporal:temporal-test-server) compiled ahead of time,
# so the same server runs here on a JVM. Give this script to the SDK as the executable:
#   createTimeSkipping({ server: { executable: { type: 'existing-path', path: 'scripts/test-server.sh' } } })
# sdk-core starts it as `<path> <port> [extraArgs...]` and kills it (SIGKILL) at teardown, so a
# first argument that is a port means `run`, and `run` execs java: the kill reaches the JVM itself.
#
#   scripts/test-server.sh fetch        jars into the cache (mvn, once per version); prints the folder
#   scripts/test-server.sh run PORT [--enable-time-skipping]
#   scripts/test-server.sh PORT [...]   the same as run: how sdk-core calls it
#   scripts/test-server.sh dir          the cache folder of the pinned version (fetched or not)
#
# The cache is ${XDG_CACHE_HOME:-~/.cache}/agentd/test-server/<version>/ (lib/ holds the jars).
# AGENTD_TEST_SERVER_VERSION overrides the pinned version, to try another one.
set -euo pipefail

version=${AGENTD_TEST_SERVER_VERSION:-1.38.0}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/agentd/test-server/$version

die() { echo "test-server: $*" >&2; exit 1; }

find_java() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    echo "$JAVA_HOME/bin/java"
  elif command -v java >/dev/null; then
    command -v java
  else
    die "java not found (needed to run the Temporal test server): apt-get install default-jre-headless, or set JAVA_HOME"
  fi
}

# Flags for a quick start: sdk-core gives the server 5 s to answer. C1 only and the serial
# collector start faster and are plenty for a test server; the class-data archive made at fetch
# time saves most of the rest (a JVM that cannot use it, e.g. after a JDK update, ignores it).
jvm_flags() {
  echo -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss1m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Starts the server once with -XX:ArchiveClassesAtExit and stops it when it listens, so later
# starts map the classes it loaded. Best effort: without the archive the server starts slower.
make_class_archive() {
  local dir=$1 java=$2 port pid tries=0
  while :; do
    port=$((20000 + RANDOM % 40000))
    listening "$port" || break
    tries=$((tries + 1)); [ "$tries" -lt 20 ] || return 0
  done
  # shellcheck disable=SC2046
  "$java" $(jvm_flags) -XX:ArchiveClassesAtExit="$dir/classes.jsa.tmp" -Xlog:cds=off -Xlog:cds+dynamic=off \
    -cp "$dir/lib/*" io.temporal.testserver.TestServer "$port" >"$dir/archive.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do listening "$port" && break; sleep 0.1; done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # Renamed only once the JVM has exited: a half-written archive would crash the JVM that maps it.
  if [ -s "$dir/classes.jsa.tmp" ]; then mv "$dir/classes.jsa.tmp" "$dir/classes.jsa"; fi
  rm -f "$dir/classes.jsa.tmp"
}

fetch() {
  local java
  java=$(find_java) # also when fetched: a test should hear of a missing java here, not as a start timeout
  if [ -f "$cache/complete" ]; then echo "$cache"; return; fi
  command -v mvn >/dev/null || die "mvn not found (needed to fetch the Temporal test server from Maven Central): apt-get install maven"
  echo "test-server: fetching io.temporal:temporal-test-server:$version and its jars from Maven Central (mvn) into $cache" >&2
  mkdir -p "$(dirname "$cache")"
  local partial
  partial=$(mktemp -d "$cache.partial.XXXXXX")
  if ! mvn -B -q -f "$here/test-server/pom.xml" -DtestServerVersion="$version" \
      -DincludeScope=runtime -DoutputDirectory="$partial/lib" dependency:copy-dependencies >"$partial/mvn.log" 2>&1; then
    tail -n 30 "$partial/mvn.log" >&2
    rm -rf "$partial"
    die "mvn could not fetch io.temporal:temporal-test-server:$version (output above)"
  fi
  [ -f "$partial/lib/temporal-test-server-$version.jar" ] || { rm -rf "$partial"; die "mvn ran but temporal-test-server-$version.jar is missing"; }
  make_class_archive "$partial" "$java"
  rm -f "$partial/mvn.log" "$partial/archive.log"
  touch "$partial/complete"
  # A folder without the mark is left from an interrupted copy by hand: ours replaces it. Another
  # fetch may have finished first: keep its folder, drop ours.
  [ -f "$cache/complete" ] || rm -rf "$cache"
  mv -T "$partial" "$cache" 2>/dev/null || rm -rf "$partial"
  echo "$cache"
}

run() {
  [ $# -ge 1 ] || die "usage: $0 run PORT [--enable-time-skipping]"
  [ -f "$cache/complete" ] || die "the test server $version is not fetched: run '$0 fetch' first (needs mvn and Maven Central)"
  local java archive=()
  java=$(find_java)
  if [ -f "$cache/classes.jsa" ]; then
    archive=(-XX:SharedArchiveFile="$cache/classes.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off)
  fi
  # shellcheck disable=SC2046
  exec "$java" $(jvm_flags) "${archive[@]}" -cp "$cache/lib/*" io.temporal.testserver.TestServer "$@"
}

case "${1:-}" in
  fetch) fetch ;;
  run) shift; run "$@" ;;
  dir) echo "$cache" ;;
  [0-9]*) run "$@" ;;
  *) echo "usage: $0 fetch | run PORT [--enable-time-skipping] | PORT [...] | dir" >&2; exit 2 ;;
esac
