/// What `--time-scale` means, in one sentence both `run` and `serve` use (issue 33 §9: the
/// option means the same in both; each adds only its range).
enum TimeScaleHelp {
    static let meaning = "Multiply every deliberate wait by this factor: the knobs' waits (slow, no-answer), the lifetimes "
        + "racing them (cas-ticket-lifetime, cm-token-lifetime), a recording's server waits (a chain with `delays: true`) "
        + "and the SAMLH_REQUEST_TIMEOUT a client is told; scenarios marked real_time keep the real clock."
}
