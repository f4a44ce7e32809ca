# Sourced by the scripts that start servers on loopback (setup-shibboleth-sp.sh,
# record-real-chains.sh, bench-ratio.sh).

# A port nothing listens on: bash's /dev/tcp connect fails (refused) for a free port. Another
# process may still take it before the caller binds it; callers retry on a bind failure.
free_port() {
    local port
    for _ in $(seq 1 50); do
        port=$(( 20000 + RANDOM % 40000 ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
    done
    echo "no free port found on 127.0.0.1" >&2
    exit 1
}
