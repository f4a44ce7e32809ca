#!/usr/bin/env bash
# A real MIT Kerberos realm on loopback for the Negotiate/Kerberos tests (issue 24): Debian's
# krb5-kdc run as an ordinary process from a directory of its own (no system service, nothing
# under /etc touched), as MIT's own test suite (k5test) runs it.
#
#   bash scripts/setup-kerberos.sh install          the Debian packages (krb5-kdc, krb5-admin-server, krb5-user, libkrb5-dev)
#   bash scripts/setup-kerberos.sh start DIR        make the realm in DIR (if new) and start its KDC; prints DIR/env.sh
#   bash scripts/setup-kerberos.sh stop DIR         stop DIR's KDC
#
# The realm is EXAMPLE.ORG, the Windows domain the NTLM mocks pose as (NTLMAuthenticator.Names).
# Its principals are the `windows` profile's users with their passwords (alice, bob, jorg) and
# the mocks' HTTP services: HTTP/127.0.0.1 and HTTP/localhost (the two host names the mocks hand
# out), whose keys go to DIR/http.keytab; DIR/users.tsv (0600) lists the users and passwords
# (the runner's kinit reads it). The KDC takes TCP (udp_preference_limit = 1) and logs to
# DIR/kdc.log. DIR/env.sh sets, for a shell or a test:
#   KRB5_CONFIG        DIR/krb5.conf (the realm, its KDC on 127.0.0.1:PORT, no DNS lookups)
#   SAMLH_KERBEROS     DIR (the mocks read http.keytab from it and keep their replay cache there;
#                      the runner reads krb5.conf and users.tsv and gets a client its ticket with `kinit`)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/ports.sh

realm=EXAMPLE.ORG
command=${1:-}

install_packages() {
  local packages=(krb5-kdc krb5-admin-server krb5-user libkrb5-dev) missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then echo "setup-kerberos: packages present"; return; fi
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "setup-kerberos: installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # Debian's packages ask for a default realm (left empty: noninteractive) and may start their
  # system services; neither is used: the realm here lives in its own directory.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # A krb5kdc the package may have started for a system realm is not ours.
  $sudo service krb5-kdc stop >/dev/null 2>&1 || true
  $sudo service krb5-admin-server stop >/dev/null 2>&1 || true
}

make_realm() {
  local dir=$1 port=$2
  mkdir -p "$dir"
  chmod 700 "$dir"
  cat > "$dir/krb5.conf" <<CONF
[libdefaults]
    default_realm = $realm
    dns_lookup_kdc = false
    dns_lookup_realm = false
    dns_canonicalize_hostname = false
    rdns = false
    udp_preference_limit = 1
    default_ccache_name = FILE:$dir/ccache

[realms]
    $realm = {
        kdc = 127.0.0.1:$port
    }

[domain_realm]
    127.0.0.1 = $realm
    localhost = $realm
    .example.org = $realm
CONF
  cat > "$dir/kdc.conf" <<CONF
[kdcdefaults]
    kdc_listen = 127.0.0.1:$port
    kdc_tcp_listen = 127.0.0.1:$port

[realms]
    $realm = {
        database_name = $dir/principal
        key_stash_file = $dir/stash
        acl_file = $dir/kadm5.acl
        max_life = 10h
        max_renewable_life = 1d
        supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
    }

[logging]
    kdc = FILE:$dir/kdc.log
CONF
  : > "$dir/kadm5.acl"
  echo "$port" > "$dir/port"
}

env_of() {
  local dir=$1
  export KRB5_CONFIG="$dir/krb5.conf" KRB5_KDC_PROFILE="$dir/kdc.conf" KRB5RCACHEDIR="$dir"
}

# Whether process $1 runs (a zombie does not: where PID 1 reaps nothing, a stopped KDC stays one).
alive() { [[ -r /proc/$1/stat ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]; }

# kadmin's stderr without its "No policy specified" notice for every principal.
quiet() { grep -v "No policy specified" >&2 || true; }

populate() {
  local dir=$1
  env_of "$dir"
  kdb5_util create -s -r "$realm" -P "samlharness-master-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" >/dev/null
  # The `windows` profile's users (MockServers/Profile: alice and bob, ASCII passwords full of
  # punctuation; jorg, a non-ASCII one), read from the harness's own profile listing.
  python3 - MockIdP/windows/profile.yaml > "$dir/users.tsv" <<'PY'
import json, re, sys
# The profile's users: `- username: NAME` then `password: "…"` (YAML double-quoted, whose
# escapes here are JSON's).
name = None
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r'\s*- username:\s*(\S+)', line)
    if m: name = m.group(1)
    m = re.match(r'\s*password:\s*(".*")\s*$', line)
    if m and name:
        print(f"{name}\t{json.loads(m.group(1))}")
        name = None
PY
  chmod 600 "$dir/users.tsv"
  while IFS=$'\t' read -r name password; do
    [[ -z "$name" ]] && continue
    # The password on stdin (twice, as kadmin asks), never on a command line.
    printf '%s\n%s\n' "$password" "$password" | kadmin.local -q "addprinc $name@$realm" 2>&1 >/dev/null | quiet
  done < "$dir/users.tsv"
  for host in 127.0.0.1 localhost; do
    kadmin.local -q "addprinc -randkey HTTP/$host@$realm" 2>&1 >/dev/null | quiet
    kadmin.local -q "ktadd -k $dir/http.keytab HTTP/$host@$realm" >/dev/null
  done
  chmod 600 "$dir/http.keytab"
}

case "$command" in
  install) install_packages ;;
  start)
    dir=${2:?usage: setup-kerberos.sh start DIR}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ -f "$dir/kdc.pid" ]] && alive "$(cat "$dir/kdc.pid")"; then
      echo "$dir/env.sh"
      exit 0
    fi
    if [[ ! -f "$dir/realm.ok" ]]; then
      # New, or left half-made by an earlier start that failed: made afresh.
      rm -f "$dir"/principal* "$dir/stash" "$dir/http.keytab" "$dir/users.tsv"
      make_realm "$dir" "$(free_port)"
      populate "$dir"
      touch "$dir/realm.ok"
    fi
    env_of "$dir"
    started=""
    for attempt in 1 2 3; do
      # In a session of its own: the KDC outlives the shell (or test) that started it, until `stop`.
      : > "$dir/kdc.log"
      setsid krb5kdc -n -P "$dir/kdc.pid" > "$dir/krb5kdc.out" 2>&1 < /dev/null &
      pid=$!
      # Ready when this KDC says it bound its sockets ("commencing operation", after the bind)
      # and still runs; a port taken meanwhile makes it exit instead. Polled, up to 10 s.
      for _ in $(seq 1 100); do
        if ! alive "$pid"; then break; fi
        if grep -q "commencing operation" "$dir/kdc.log" 2>/dev/null \
           && (exec 3<>"/dev/tcp/127.0.0.1/$(cat "$dir/port")") 2>/dev/null && alive "$pid"; then
          started=yes
          break
        fi
        sleep 0.1
      done
      [[ -n "$started" ]] && break
      # The port was taken meanwhile: the realm moves to another.
      kill "$pid" 2>/dev/null || true
      port=$(free_port)
      sed -i "s/127\.0\.0\.1:[0-9]*/127.0.0.1:$port/" "$dir/krb5.conf" "$dir/kdc.conf"
      echo "$port" > "$dir/port"
    done
    if [[ -z "$started" ]]; then
      echo "setup-kerberos: krb5kdc did not listen on 127.0.0.1:$(cat "$dir/port"):" >&2
      tail -20 "$dir/krb5kdc.out" "$dir/kdc.log" >&2 2>/dev/null || true
      exit 1
    fi
    echo "$pid" > "$dir/kdc.pid"
    cat > "$dir/env.sh" <<ENV
export KRB5_CONFIG='$dir/krb5.conf'
export SAMLH_KERBEROS='$dir'
ENV
    echo "$dir/env.sh"
    ;;
  stop)
    dir=${2:?usage: setup-kerberos.sh stop DIR}
    if [[ -f "$dir/kdc.pid" ]]; then
      pid=$(cat "$dir/kdc.pid")
      kill "$pid" 2>/dev/null || true
      # Waited for (up to 5 s), so a start right after does not meet the dying KDC.
      for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
      rm -f "$dir/kdc.pid"
    fi
    ;;
  *) echo "usage: setup-kerberos.sh install | start DIR | stop DIR" >&2; exit 2 ;;
esac
