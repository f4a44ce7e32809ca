import Foundation

/// The page the proxy serves about itself (`http://samlharness.record/`, or its own address):
/// what it records and how to trust its CA on a device. Hands out the certificate, never the key.
enum RecordingPage {
    static func html(ca: RecordingCA, allow: [HostPattern], others: RecordingProxy.Others) -> String {
        let hosts = allow.map { "<li><code>\(escape($0.description))</code></li>" }.joined()
        let expiry = ca.certificate.notValidAfter.formatted(Date.ISO8601FormatStyle().year().month().day())
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>samlharness record</title>
        <style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#222}
        code{background:#f3f3f3;padding:0 .2em;border-radius:3px;word-break:break-all}a.button{display:inline-block;margin:.3rem .5rem .3rem 0;
        padding:.5rem 1rem;background:#0b5;color:#fff;border-radius:6px;text-decoration:none}</style></head>
        <body>
        <h1>samlharness record</h1>
        <p>This device is using the SAMLHarness recording proxy. It records the exchanges with these hosts, and only these:</p>
        <ul id="allowed">\(hosts)</ul>
        <p>Every other host is \(others == .tunnel ? "passed through untouched and not recorded" : "refused")</p>
        <h2>Trust the recording CA</h2>
        <p>To record HTTPS, this device must trust the CA the proxy signs its certificates with:</p>
        <p><a class="button" id="ca-crt" href="/ca.crt">ca.crt (DER: iOS, Android)</a>
        <a class="button" id="ca-pem" href="/ca.pem">ca.pem (PEM: desktop, curl)</a></p>
        <p>SHA-256 fingerprint <code id="fingerprint">\(ca.fingerprintSHA256)</code>; valid until \(expiry).
        Compare it with what the device shows before you trust it.</p>
        <ul>
        <li><b>iOS</b>: open ca.crt in Safari, install the profile in Settings › General › VPN &amp; Device Management,
        then turn on full trust in Settings › General › About › Certificate Trust Settings.</li>
        <li><b>Android</b>: Settings › Security › Encryption &amp; credentials › Install a certificate › CA certificate.
        Apps trust user CAs only if their debug build's network security config says so.</li>
        </ul>
        <p><b>Remove the CA when the recording is done</b> (docs/recording.md lists how, per platform).</p>
        </body></html>
        """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
