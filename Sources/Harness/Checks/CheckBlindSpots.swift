extension CheckDocumentation {
    /// The blind-spot audit (issue 17): per check, the traffic shapes it cannot see and what it answers then.
    static let blindSpots: [String: String] = [
        // Encoding.
        "encoding.samlresponse-intact":
            "Sees SAMLResponse values of HTML auto-post forms any mock served (web SSO, IdP-initiated, AD FS passive, OPDS, replay) against the client's url-encoded POST bodies, and the IdP's ECP SOAP Body against the client's SOAP post to the SP's `…/ECP` path. A Response sent by GET, in a multipart body or to another SP path is not matched: not-applicable (\"never posted\"). A re-serialized ECP Response passes when the SP still verified it or its exclusive canonical form (what the signature covers) is the IdP's; a SOAP Fault the client sends the SP carries no Response and is not compared; WS-Fed `wresult` forms and WS-Trust RSTR tokens are outside its flows.",
        "encoding.samlrequest-intact":
            "Sees HTTP-Redirect `SAMLRequest`, `RelayState`, `SigAlg` and `Signature` from a 3xx Location to the next request to the same origin and path, the proxy's exchanges included. An AuthnRequest by HTTP-POST form or inside SOAP/PAOS is not looked at (not-applicable: the mock SPs only redirect); on an unsigned redirect a re-encoding that keeps the decoded value passes by design.",
        "encoding.form-percent-encoded":
            "Sees every body sent as `application/x-www-form-urlencoded` (the proxy's copies included); multipart, JSON and bodies without that Content-Type are skipped (not-applicable when none is left). It knows what a field was meant to hold only for the hidden fields of the form served for that action and the username and password fields, so a raw `+` or `&` in any other field (a CAS REST `service` with a query of its own) passes here and is left to cas.service-encoded; a raw `/`, named in the purpose, is never flagged because it decodes unchanged.",
        "encoding.query-percent-encoded":
            "Sees every query the client sent: a raw byte at or below 0x20 or at or above 0x80 and a `%` starting no escape fail anywhere; values are compared with the URL the client was given (the start URL, a Location, a served form action) having the same parameter names. A query the client built itself (an OPDS `redirect_uri`, CAS validation URLs) is held to the byte rules only: what its values were meant to hold is unknown here, so a raw `&` or `=` inside one cannot be seen — the verdict says so, and a run with only such queries is not-applicable, never a pass (cas.service-encoded covers CAS services).",
        "encoding.base64-unaltered":
            "Sees `SAMLResponse` and `SAMLRequest` values of served HTML auto-post forms against the client's form posts of them, CR and LF normalised. ECP SOAP Bodies, deflated HTTP-Redirect values and RSTR tokens are not base64 form values and are not looked at; a message sent by GET or multipart is not-applicable (\"never posted\").",
        "encoding.utf8-credentials":
            "Judges form fields named like a password (url-encoded bodies only), query parameters named so, `Authorization: Basic`, the WS-Security Password (XML-unescaped), Digest answers (recomputed over each encoding of the password, naming the one that gives the client's `response`) and, on the proxy flow, the proxy's own non-ASCII password in `Proxy-Authorization`. Not seen: JSON and multipart bodies, password fields under other names. A SOAP Password in CDATA or an envelope declared ISO-8859-1 fails as mangled or Latin-1 (a fail, never a pass); with an ASCII password the check is not-applicable, and evidence describes the bytes sent without quoting them.",
        "encoding.relaystate-unaltered":
            "Sees RelayState on the Redirect leg (a Location carrying SAMLRequest, then the request to that path) and on the POST leg (the served auto-post form, then the client's post). On the Redirect leg it compares decoded values, so a re-encoded RelayState (`%3A` sent as `:`) passes although the purpose says byte for byte (samlrequest-intact catches it when the redirect is signed). ECP's ecp:RelayState is judged by ecp.header-blocks-handled, not here.",

        // Flow.
        "flow.resource-obtained":
            "Judged from the truth the mocks record (the SP's or CAS application's secret, the CAS user of a successful validation, the HTTP-auth page's secret, the book's SHA-256, the AD FS assertion ID, the SAMLResponse for a relying party outside the harness, the replayed pages), found as a substring of the client's resource; behind the proxy the truth comes from the relayed copies. A WS-Trust token counts as obtained whatever its defect: on a token scenario the expectation is failure, and flow.failure-reported gives the relying party's verdict for a client that hands the token on.",
        "flow.failure-reported":
            "Reads the traffic first: when the scenario's knobs (or `expect.refusal`) name the SP's refusal code and the SP refused in the run, that code must be the one (another code means the client, not the scenario's defect, stopped the login: fail); the SP's refusal with the right code passes for a client that stopped and reported any failure. On WS-Trust a client that declares no SAML validation and hands the token on passes by the relying party's refusal of the token's defect. Otherwise (the client refused by itself, or a transport or IdP failure) the expected words must be in the result's `error` field, or in stderr and stdout only when the client wrote no error. Refusals by CAS, AD FS faults and HTTP-auth challenges are judged by the words (their own checks read the codes).",
        "flow.no-false-success":
            "Passes when the client did not claim success (non-zero exit, or an outcome other than success) or when its resource holds a value the mocks issued. A success shown only on screen is invisible: by hand it is not-applicable.",
        "flow.redirects-followed":
            "Sees every 3xx the client followed, recognised by a later request to the same origin, decoded path and decoded query (the proxy's exchanges included). A redirect followed with a changed query or under another host alias is not recognised as followed and drops out of the judgement (not-applicable when none is left); redirects never followed are not judged here.",
        "flow.post-form-submitted":
            "Sees only auto-post forms carrying `SAMLResponse` or `SAMLRequest` (any mock, replay included); other auto-submitting forms (AD FS relying-party choice, WS-Fed) are not looked at. In a scenario expecting failure a form left unposted is allowed; a multipart submission is read as url-encoded and fails as missing its fields.",
        "flow.relaystate-preserved":
            "Sees the RelayState of served SAMLResponse forms against the client's post of that Response, and the SP's ecp:RelayState (an answer with a `paos` Content-Type) against the next request to the SP's `…/ECP` path. A Response given without RelayState is skipped (not-applicable when nothing is left); a Response sent by GET or to another SP path is not matched.",
        "flow.cookies-kept":
            "Sees every Set-Cookie of the client's exchanges (the proxy's copies of them included) and the next request to the same origin and a matching path; a cookie is only expected back on that very origin, not on other ports of 127.0.0.1 or hosts its Domain would allow. `Expires` is read in one date format (the mocks'); a cookie the client had no occasion to send back leaves it not-applicable. In a replay, a cookie the recorded client did not send back on that request either is not required (the recording shows the server did without it).",
        "flow.cookies-scoped":
            "Matches each cookie the client sent to the Set-Cookie that issued it (name and value) and judges host and path by RFC 6265. Every mock listens on 127.0.0.1, so an IdP cookie with `Path=/` sent to the SP on another port is in scope by RFC 6265 §8.5 and passes; a leak shows only by path or between the 127.0.0.1 and localhost aliases. Cookies the client made up are not matched and not counted.",
        "flow.idp-session-reused":
            "Counts login starts as IdP requests with an HTTP-Redirect `SAMLRequest`, Shibboleth's Unsolicited SSO, CAS `GET /login` and AD FS's IdpInitiatedSignOn.aspx (GET). It fails a password sent after the second start and passes only on an IdP answer that shows the session reused (`idp.session=reused`, `cas.login=sso`, AD FS answering with its Response or signed-in page); a second start followed by neither (the client stopped) is not-applicable.",
        "flow.bad-password-bounded":
            "Counts password submissions by the mocks' verdicts: `idp.login`, `cas.login`, `adfs.login`, the WS-Trust FailedAuthentication fault, the HTTP-auth mock's ok, wrong-credentials, malformed and replayed-nc answers to a request carrying credentials, a replay's password post by the recorded answer (the login form again: bad-password), read on the copies the proxy relays too (a 401 loop through the proxy counts), and the proxy's own 407 or 400 for a wrong or malformed proxy password. Never counted: CAS form posts refused for a stale execution or login ticket; a loop of those is not-applicable, or passes under the limit when one counted rejection came first.",
        "flow.lockout-respected":
            "Sees only the mock IdP's `idp.login=locked` (form login, HTTP Basic and ECP). The CAS and AD FS mocks never lock an account, so on cas-browser and adfs-passive it is always not-applicable.",
        "flow.consent-answered":
            "Sees only the mock IdP's consent page (`idp.page=consent`) and the answer it recorded (`idp.consent`). CAS and AD FS show no consent page: always not-applicable on cas-browser and adfs-passive. A consent post the IdP refused (no csrf_token, stale execution) leaves no answer and fails as never answered.",
        "flow.second-factor-completed":
            "Sees only the mock IdP's second-factor page and the next POST carrying `j_tokenNumber`: a code other than the one given fails, a post the IdP refused (4xx or 5xx: a missing csrf_token, a stale execution, a lost flow cookie) fails, an unanswered one is not-applicable, and a `wrong-code` answer passes only when the scenario gave that code. CAS and AD FS have no second factor: always not-applicable on cas-browser and adfs-passive.",
        "flow.redirects-bounded":
            "Counts every 3xx the client followed in the whole run (the proxy's exchanges included, relayed copies not), not the hops of one loop. Redirects to hosts the mocks do not serve are invisible; a client stopped inside a loop that reports failure passes.",
        "flow.timeout-clean":
            "Sees stalls as answers the mocks delayed or withheld (`slow`, `no-answer`) and undelayed answers slower than the real client_timeout. Behind the proxy the delay is recorded on the relayed copy, which it skips, and the proxy's own exchange is judged by the real clock only, so a slow origin reached through the proxy (shorter than client_timeout, or scaled by --time-scale) is not-applicable (\"no server was slow\"). Cut or reset answers count only when also slow.",
        "flow.server-error-reported":
            "Sees the first 5xx of the client's exchanges (the proxy's own 502 and 504 and relayed 5xx included) and counts requests to the same method, origin and path, whatever the query. An error page served with 200 (`error-page-200`), a cut or a reset answer is no 5xx and leaves it not-applicable; retries to another path are not counted.",
        "flow.reauth-on-credentials-invalid":
            "Sees the circulation manager's `credentials-invalid` problem, a later SSO start or accepted callback, and a redo with the same method and path (opds-saml only). A redo at another path (another loan URL for the same book) is not recognised and fails as never redone.",
        "flow.no-duplicate-post":
            "Keys SAMLResponse form posts (line breaks ignored), ECP SOAP Bodies posted to the SP's `…/ECP`, and `ST-` and `PT-` tickets by the ticket alone, wherever presented (a query or form `ticket`, a samlValidate AssertionArtifact), so the same ticket at two validation paths counts twice. A SAMLResponse re-posted with `+` turned into spaces counts as a new one (encoding.form-percent-encoded fails it).",

        // Security.
        "security.no-preemptive-credentials":
            "Judges `Authorization` over the client's exchanges, through the proxy too, against the 401 challenges before it: a challenge covers its origin and the directory of the challenged path and below (RFC 7617 §2.2), so credentials sent unasked to another directory of the same host (`/basic-other/` after a challenge for `/basic/`) fail. Up-front `Proxy-Authorization` is judged apart, as a recommendation (security.no-preemptive-proxy-credentials). Credentials in forms and SOAP bodies are not its concern.",
        "security.no-preemptive-proxy-credentials":
            "Sees `Proxy-Authorization` on the client's requests to the proxy and the proxy's 407s. A recommendation: sending proxy credentials up front to the proxy the user configured is allowed by RFC 9110 and done by curl, python-requests and wget. A client that bypasses the proxy is not-applicable.",
        "security.no-credentials-to-other-host":
            "The owners of the user's Basic or Digest credentials are the protection spaces that challenged in the run (any 401 with a challenge, by the origin the client named) and the IdP's ECP endpoint; sending them to any other origin fails and names that origin (never blame on the first receiver). Other schemes (Bearer) are owned by the origin they went to first. IdP cookies (idp, cas, adfs mocks) must stay on their host. Passwords in form and SOAP bodies are not looked at, so on adfs-wstrust and cas-rest it is not-applicable (security.password-only-to-idp judges them); behind the proxy the IdP's Set-Cookie sits on the proxy's exchange, so IdP cookies are not recognised there. Every mock is on 127.0.0.1, so only the localhost alias counts as another host.",
        "security.no-https-downgrade":
            "Sees 3xx redirects from an https URL (or with an https Referer, or the https start URL) to an http Location, and the follow carrying Authorization, Cookie, `access_token` or `ticket`. Only the IdP and SP have a plain-http twin to downgrade to (knob `https-downgrade`); the other mocks go https (`tls=MOCK`) without one, so on http-basic, http-digest, cas-browser, adfs-passive, opds-saml and replay it is always not-applicable. A downgrade by an auto-post form (an https page posting the SAMLResponse to an http ACS) is not looked at.",
        "security.tls-certificate-validated":
            "Sees the https listeners a `tls-FAULT=MOCK` knob (unknown-ca, self-signed, expired, not-yet-valid, wrong-host, missing-intermediate, weak-key, sha1) puts a faulty certificate on: any HTTP request that arrives there fails, naming what it carried (credentials, cookies, a SAML message, a ticket, a token); otherwise the connections the client ended there (its TLS alert, or a close after or during the handshake) pass when the client reported a failure whose words name a certificate problem. A client that never connects to the faulty listener is not-applicable. The mocks see the handshake from the server's side only: which certificate check the client ran is read from its alert (BoringSSL's names), not known; a client that pins another certificate is not told apart from one that validates. Replays serve no faults.",
        "security.tls-legacy-refused":
            "The same reading for `tls-legacy=MOCK` (the good certificate over TLS 1.0/1.1 only): any request there fails; a handshake the client ended or that found no common version passes when the client's error names a TLS problem. Whether the client would have refused TLS 1.1 with a bad certificate too is not tested.",
        "security.no-credentials-in-url":
            "Looks for the password in every form the shared search knows (UTF-8, NFC, NFD, Latin-1, encoded twice; raw, percent-encoded, XML-escaped, inside Basic), the URL judged on its own, and for `access_token` values a Location handed out; tickets and SAML messages in a URL are not judged. `user:password@` in a URL never reaches a server (HTTP clients turn it into Authorization), so the userinfo test sees only proxies' absolute-form targets; on the wire such a client shows as Basic, judged by security.no-preemptive-credentials.",
        "security.password-only-to-idp":
            "Looks for the password in every request as UTF-8, NFC, NFD, Latin-1 and UTF-8 encoded twice, raw, percent-encoded, XML-escaped and inside Basic (Authorization and Proxy-Authorization); the receiver of a request sent through the proxy is the origin behind it (the proxy only for Proxy-Authorization), and the CAS-protected application `/app/` counts as the application, not CAS. Left: a Digest answer holds no password, so on http-digest it is not-applicable; JSON unicode escapes and base64 outside Basic are not searched.",
        "security.signature-validated":
            "Sees Responses in served SAMLResponse forms, the IdP's ECP answer and AD FS's WS-Trust token (SAML 1.1 or 2.0) whose knobs (on the answer, else the scenario's) break the signature. A client that declares `validates_saml` fails when it posts, forwards or takes the broken one; one that does not is not-applicable (the SP or the relying party judges). A Response addressed to a relying party outside the harness (AD FS passive to AWS) is not-applicable unless a declaring client reports success with it (fail). Replay refuses knobs: not-applicable.",
        "security.assertion-conditions-validated":
            "The same reading as security.signature-validated (browser forms, ECP, WS-Trust tokens, relying parties outside the harness), for knobs that break the conditions (expired, not yet valid, foreign audience, subject confirmation). Replay: not-applicable.",
        "security.relaystate-not-followed":
            "Collects foreign hosts from the start URL's query, `target`, `RelayState`, `redirect_uri`, `return` and `returnTo` query values and the RelayStates of served forms, and fails a logged request naming such a host or client output naming it. A request to a foreign host never reaches the mocks (no DNS, no proxy on these flows): a client that went there silently and failed without naming it is not seen, which the pass reason states (no request to the host reached the mocks). A RelayState the client sends in a form body or ecp:RelayState is not inspected.",
        "security.proxy-credentials-only-to-proxy":
            "Fails a `Proxy-Authorization` field on a request that reached an origin directly (the proxy strips the field from what it relays) and the proxy's password found in the origin's `Authorization` (the confusion proxy.basic-origin describes). A client that bypasses the proxy sends no proxy credentials: not-applicable, and proxy scenarios that exercise this check report such a run as an error.",

        // HTTP authentication.
        "httpauth.challenge-answered":
            "Sees 401s with WWW-Authenticate from any origin (the relayed copies behind the proxy included) and 407s from the proxy, and pairs each with the next request in the same protection space (the HTTP-auth mock's realm, else mock and path). The credentials' encoding and correctness are left to other checks; a Digest re-send counts as unchanged only when the mock refused the same user twice.",
        "httpauth.protection-space-reused":
            "Sees requests to the HTTP-auth mock and through the proxy after their space first accepted credentials (Basic: the directory of the accepted URI; Digest: the whole origin; the proxy: every request). Any credentials on a later request count as reuse, wrong ones included. The mock makes the situation happen: a `continue-` page redirects to its neighbour in the same directory (http-basic.protection-space-reused), and a run without a second request there is an error. The catalog names it as a recommendation: RFC 7617 §2.2 says a client MAY reuse the credentials, and a client that waits for the new challenge and answers it is safe.",
        "httpauth.digest-response-valid":
            "Recomputes every Digest answer sent to an origin (never through the proxy) against the challenges of the same origin and realm, the request target and the given password as UTF-8. A Latin-1-hashed answer shows as computed wrong here; encoding.utf8-credentials names the encoding. Without a password given it passes without recomputing `response`.",
        "httpauth.digest-first-choice":
            "Sees Digest answers to an origin after a 401 of that origin with two or more Digest challenges, matched to the challenge by algorithm and realm (else by nonce). Which algorithms the client supports is unknown here, so a client without the first one's algorithm gets the same warning as one that merged the challenges; the proxy's 407s are not looked at.",
        "httpauth.digest-stale-retried":
            "Sees answers marked stale (the mock's stale-nonce verdict or `stale=true`) and the next request in the same space. Under `/stale-first/` the mock answers the first right Digest answer with stale=true, so http-digest.stale-nonce meets it with every client; a run without one is an error.",

        // NTLM.
        "ntlm.v2-only":
            "Decodes every Authorization and Proxy-Authorization with the NTLM or Negotiate scheme (SPNEGO unwrapped) and judges the AUTHENTICATE by its NtChallengeResponse's length and the extended-session-security flag: over 24 bytes is NTLMv2. An LmChallengeResponse sent beside an NTLMv2 one is not recomputed (LMv2 and LM look alike by length), and a message that does not decode is left to ntlm.handshake-correct.",
        "ntlm.handshake-correct":
            "Pairs each AUTHENTICATE with the last answer from the same origin (or the proxy) that carried a CHALLENGE, and compares the two requests' connection ids, which the mocks give per TCP connection; a CHALLENGE sent with `Connection: close` (knob ntlm-new-connection) excuses a new connection. The domain is judged present when DomainName is non-empty or the user is a UPN; TargetInfo is judged by the AV pairs in the NTLMv2 blob, so an NTLMv1 response is left to ntlm.v2-only. A MIC and a channel binding are not required.",
        "ntlm.credentials-scoped":
            "Counts a destination as having asked once any answer from it (a 401 from an origin, a 407 from the proxy) offered NTLM or Negotiate: an AUTHENTICATE needs such an answer before it; a NEGOTIATE ahead of the destination's own challenge passes (it carries no credentials; `curl --ntlm` sends one), to a destination that never asks it fails. Sees only requests to the mocks: a message sent to a host the mocks do not serve is invisible. Negotiate tokens that are Kerberos-only count as Negotiate messages too.",
        "ntlm.bad-credentials-bounded":
            "Counts decoded AUTHENTICATE messages answered 401 or 407, over the whole run and every destination; a handshake restarted with a NEGOTIATE does not reset the count.",
        "ntlm.kerberos-preferred":
            "Reads the service principal in the clear part of the AP-REQ's ticket; whether the ticket is valid is the server's judgement (GSS-API with the realm's keytab), seen in flow.resource-obtained. Tokens to the proxy are not judged.",

        // ECP.
        "ecp.paos-headers":
            "Sees the client's requests the SP treated as a login start (`sp.sso`). A client that skips the SP and starts at the IdP's ECP endpoint with its own AuthnRequest, or whose first SP request is answered from a session, is not-applicable.",
        "ecp.consumer-url-matched":
            "Compares the SP's first PAOS request with the IdP's first ecp:Response after it and looks for a Response posted afterwards to any mock: a SOAP 1.1 Body holding samlp:Response, a SOAP 1.2 or otherwise wrapped body holding a SAML protocol Response, or a SAMLResponse form. Posts to hosts the mocks do not serve are invisible: a client that sent the Response to another host and reported the mismatch passes (the mocks cannot see that post).",
        "ecp.header-blocks-handled":
            "Reads the SOAP envelopes sent to the IdP's ECP path and back to the exact responseConsumerURL; an envelope that does not parse as SOAP 1.1 is skipped rather than counted against the client, and a post to another URL is not looked at. Only paos:Request, ecp:Request and ecp:RelayState are checked.",
        "ecp.soap-to-idp":
            "Reads every request to the IdP's ECP path after the PAOS request: text/xml, a SOAP 1.1 envelope around samlp:AuthnRequest, HTTP Basic. Requests to another IdP path fail as sent elsewhere; the Basic credentials' encoding and correctness are left to encoding.utf8-credentials and flow.bad-password-bounded.",

        // CAS.
        "cas.service-ticket-single-use":
            "Counts validations per ticket at CAS's validation endpoints and by the CAS-protected application (`cas.validate`), skipping presentations CAS refused before using the ticket (an unreachable pgtUrl). A ticket presented somewhere that does not validate it is not counted.",
        "cas.service-url-exact":
            "Compares the service each validation names (query `service`, samlValidate `TARGET`, or the application's own URL) with the one the ticket was asked for. Validations of tickets not issued in this run, or issued with no recorded service, are skipped (not-applicable when none is left).",
        "cas.service-encoded":
            "Reads the `service` (or `TARGET`, `targetService`) of every request to CAS: a raw `+`, space, control or non-ASCII character, or a `%` starting no escape, fails; the decoded value is compared with the service the client was given (SAMLH_CAS_SERVICE, on cas-rest and cas-browser unless a `cas-service-rewrite` knob has CAS bind another), so a service cut at its own `&`, its escapes decoded, or encoded twice fails. Under a rewrite knob only the byte rules apply.",
        "cas.failure-code-reported":
            "Sees the run's last CAS validation (endpoint or application). Failures before any validation (a refused TGT, login errors) are not-applicable; a client that prints the code anywhere in its output passes, by coincidence too.",
        "cas.ticket-validated-promptly":
            "Times each service ticket from its issue to its first validation in real seconds; `max_delay` is not scaled by --time-scale while the ticket lifetimes are, so under a time scale below 1 a validation after the scaled expiry can still pass here. A ticket never validated fails; proxy tickets are skipped.",

        // WS-Trust.
        "wstrust.credentials-xml-escaped":
            "Parses every RST to a usernamemixed endpoint and compares wsse:Username and wsse:Password as read with the given credentials. Swift string equality is canonical, so an NFD-normalised password reads back as unchanged (encoding.utf8-credentials catches it from the bytes); a PasswordDigest or a non-UTF-8 envelope fails as not escaped. Other AD FS endpoints (windowstransport, certificatemixed) are not looked at.",
        "wstrust.envelope-well-formed":
            "Judges every RST to a usernamemixed endpoint (1.3 or 2005): Content-Type, the SOAP 1.2 root, wsa:Action for that endpoint, wsa:To, wsa:MessageID, wsu:Timestamp with Created. The values of the Timestamp and of wsa:To are not judged here (AD FS's own verdict on the Timestamp shows as a fault).",
        "wstrust.applies-to-set":
            "Reads wsp:AppliesTo/wsa:EndpointReference/wsa:Address of RSTs in the 1.3 or 2005 namespace against ADFS_APPLIES_TO. An envelope that does not parse is skipped (not-applicable when none parses; wstrust.envelope-well-formed fails it).",
        "wstrust.fault-reported":
            "Sees faults AD FS answered on a usernamemixed endpoint (`adfs.fault`, the 415 for a wrong content type included); the transport knobs (error-500, slow, no-answer) are no SOAP fault and leave it not-applicable. A loop is more than three identical faults; the code passes when named anywhere in the client's output.",

        // AD FS passive.
        "adfs.form-login-posted":
            "Sees the AD FS sign-in posts the mock judged (`adfs.login`) and, after a successful one, the next request to AD FS. A sign-in posted elsewhere is not-applicable; only that first following request is checked for MSISAuth and MSISAuthenticated.",

        // OPDS.
        "opds.redirect-uri-appended":
            "Sees the client's `/SAML/saml_authenticate` calls against the authenticate links of the authentication documents served. `redirect_uri` must be present and non-empty; its value and encoding are not judged (encoding.query-percent-encoded does not compare it either).",
        "opds.bearer-token-sent":
            "Sees loans, borrow and fulfil calls to the circulation manager and their Authorization; the delivery redirects (`/delivery/…`) and the feeds are not checked. A token sent as `access_token` in the query fails here and in security.no-credentials-in-url.",
        "opds.book-content-type-checked":
            "Sees the fulfil and delivery answers and the client's resource (a body's SHA-256 or its first 200 bytes). A client that claims no book passes only when it was served a page that is not a book and did not take it; with nothing of the kind served it is not-applicable. A non-book page the client took but reported in another form (a file path, a base64 copy) is not recognised.",
    ]
}
