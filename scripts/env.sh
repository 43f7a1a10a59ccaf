# Sourced by the other scripts: finds JDK 25 and installs the Debian packages Paddock needs (when root).
# Kept in one place so `scripts/run` and `scripts/test` can never disagree about what a machine needs.

paddock_find_jdk() {
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64 /usr/lib/jvm/jdk-25*; do
    if [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] \
       && "$candidate/bin/java" -version 2>&1 | grep -qE 'version "25'; then
      export JAVA_HOME="$candidate"
      return 0
    fi
  done
  echo "error: Paddock needs a JDK 25. Install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
  echo "       looked at: \$JAVA_HOME, /usr/lib/jvm/temurin-25-jdk-amd64, /usr/lib/jvm/java-25-openjdk-amd64" >&2
  return 1
}

# Packages for running (bwrap, a C compiler with static libc for the in-sandbox init) and for the tests
# (Chromium for the web console test, debootstrap for the image build test, gVisor's runsc and Docker for
# the drivers of the same names, PostgreSQL for the store's second database).
PADDOCK_RUN_PACKAGES="bubblewrap gcc libc6-dev"
PADDOCK_TEST_PACKAGES="$PADDOCK_RUN_PACKAGES git chromium debootstrap busybox-static curl python3 python3-pip ca-certificates procps runsc docker.io postgresql"

# node and npm: the browser-vm asset build and the SDK compatibility tests. Any Node.js 18+ will do; Debian's
# packages are installed only when no node is on the PATH (a NodeSource node already bundles npm).
paddock_ensure_node() {
  if command -v node >/dev/null && command -v npm >/dev/null; then return 0; fi
  paddock_ensure_packages nodejs npm
}

paddock_ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: missing Debian packages: ${missing[*]}" >&2
    echo "       install them with: sudo apt-get install -y ${missing[*]}" >&2
    return 1
  fi
  echo "installing Debian packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# A Docker engine for the docker driver's tests: the one at $DOCKER_HOST (or /var/run/docker.sock) when it
# answers, otherwise a throwaway dockerd of the tests' own: no bridge and no iptables rules (sandboxes get no
# network but Paddock's egress proxy), its own data root, gVisor's runsc registered as the runtime "runsc".
# Exports DOCKER_HOST; PADDOCK_STARTED_DOCKERD holds the pid of a daemon started here (paddock_stop_dockerd).
paddock_ensure_dockerd() {
  local sock="${DOCKER_HOST:-unix:///var/run/docker.sock}"
  if docker -H "$sock" version >/dev/null 2>&1; then export DOCKER_HOST="$sock"; return 0; fi
  command -v dockerd >/dev/null || { echo "error: no dockerd; install Debian's docker.io" >&2; return 1; }
  local dir="${PADDOCK_DOCKERD_DIR:-/tmp/paddock-dockerd}"
  mkdir -p "$dir" && chmod 700 "$dir"
  printf '{"runtimes": {"runsc": {"path": "%s", "runtimeArgs": ["--network=none", "--host-uds=all"]}}}\n' \
    "$(command -v runsc || echo /usr/bin/runsc)" > "$dir/daemon.json"
  setsid dockerd --config-file "$dir/daemon.json" --bridge=none --iptables=false --ip6tables=false \
    --data-root "$dir/root" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" -H "unix://$dir/docker.sock" \
    </dev/null >"$dir/dockerd.log" 2>&1 &
  PADDOCK_STARTED_DOCKERD=$!
  export DOCKER_HOST="unix://$dir/docker.sock"
  local i
  for i in $(seq 1 60); do
    docker version >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "error: the test dockerd did not come up; its log:" >&2
  tail -20 "$dir/dockerd.log" >&2
  return 1
}

paddock_stop_dockerd() {
  [ -n "${PADDOCK_STARTED_DOCKERD:-}" ] || return 0
  kill "$PADDOCK_STARTED_DOCKERD" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$PADDOCK_STARTED_DOCKERD" 2>/dev/null || return 0; sleep 0.25; done
}

# A PostgreSQL server for the store's tests: the one PADDOCK_TEST_POSTGRES_URL names, otherwise a throwaway cluster
# of the tests' own (initdb + pg_ctl, about 2 s): loopback only, a random password, fsync off (nothing in it outlives
# the run). Exports PADDOCK_TEST_POSTGRES_URL; the store tests make a database of their own in it per test.
paddock_ensure_postgres() {
  [ -n "${PADDOCK_TEST_POSTGRES_URL:-}" ] && return 0
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  [ -x "$bin/initdb" ] || { echo "error: no PostgreSQL server; install Debian's postgresql" >&2; return 1; }
  local dir="${PADDOCK_POSTGRES_DIR:-/tmp/paddock-postgres}" run=() port
  paddock_stop_postgres_at "$dir"
  rm -rf "$dir" && mkdir -p "$dir" && chmod 700 "$dir"
  # PostgreSQL refuses to run as root: the cluster then belongs to Debian's postgres user
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; run=(runuser -u postgres --); fi
  local password
  password="$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
  printf '%s\n' "$password" > "$dir/pwfile"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir/pwfile"; fi
  "${run[@]}" "$bin/initdb" -D "$dir/data" -U paddock --pwfile="$dir/pwfile" -A scram-sha-256 -E UTF8 --locale=C.UTF-8 \
    --no-sync >"$dir/initdb.log" 2>&1 || { echo "error: initdb failed:" >&2; tail -5 "$dir/initdb.log" >&2; return 1; }
  rm -f "$dir/pwfile"
  for port in $(seq 55432 55499); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break; done
  "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null || { echo "error: the test PostgreSQL did not start:" >&2; tail -20 "$dir/server.log" >&2; return 1; }
  PADDOCK_STARTED_POSTGRES="$dir"
  export PADDOCK_TEST_POSTGRES_URL="postgresql://paddock:$password@127.0.0.1:$port/postgres"
}

paddock_stop_postgres() {
  [ -n "${PADDOCK_STARTED_POSTGRES:-}" ] || return 0
  paddock_stop_postgres_at "$PADDOCK_STARTED_POSTGRES"
}

paddock_stop_postgres_at() {
  local dir="$1" bin
  [ -f "$dir/data/postmaster.pid" ] || return 0
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  else "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; fi
}
