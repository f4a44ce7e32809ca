import Foundation
import SAMLCore

/// Making up what the recording lacks, where it is well-defined: a page whose form the next
/// request posts (an auto-posting SAML form, a login or consent form), a plain placeholder page
/// otherwise. Every made-up answer is marked `synthesized` and named in a warning.
extension ImportBuilder {
    mutating func synthesizeMissingAnswers() {
        for index in entries.indices {
            let working = entries[index]
            let missing = working.exchange.responseBody?.isEmpty ?? true
            let number = working.number
            if (300..<400).contains(working.status) {
                if !working.headers.contains(where: { $0.name.caseInsensitiveCompare("Location") == .orderedSame }) {
                    warn(number, "a \(working.status) redirect without a Location header was recorded; it is "
                        + "replayed without one")
                }
                continue
            }
            guard missing, (200..<300).contains(working.status), working.status != 204 else { continue }
            let next = index + 1 < entries.count ? entries[index + 1] : nil
            if let next, next.request.method == "POST", !next.formParams.isEmpty {
                entries[index].body = synthesizedForm(posting: next, from: index)
            } else if working.request.method == "POST", working.formParams.contains(where: { Self.isPasswordField($0.name) }),
                      !messages.contains(where: { $0.kind == .response }),
                      let form = entries[..<index].last(where: { $0.body != nil && !$0.bodyBase64 })?.body,
                      RecordedScenarioWriter.hasPasswordInput(form) {
                // A password posted, answered 200, and no Response ever issued: the IdP showed its
                // login form again (a wrong password), as the page the password was typed into.
                entries[index].body = form
                warn(number, "the answer's body was not recorded; no SAML Response follows the password posted here, so "
                    + "the login form it was typed into is served again (a refused password)")
            } else {
                entries[index].body = ReplayTemplate.escape("""
                <!DOCTYPE html>
                <html><head><meta charset="utf-8"><title>Not recorded</title></head>
                <body><p>samlharness replay: the body of this answer (entry \(number)) was not recorded.</p></body></html>

                """)
                warn(number, "the answer's body (\(working.status) to \(working.request.method) "
                    + "\(working.url.path)) was not recorded; a placeholder page is served")
            }
            entries[index].synthesized = true
            if !entries[index].headers.contains(where: { $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
                entries[index].headers.append(.init(name: "Content-Type", value: "text/html; charset=utf-8"))
            }
        }
    }

    /// A page with the one form that `next` posted: for a SAML message, the auto-posting page
    /// of saml-bindings-2.0-os §3.5.4 (and the message is served from here); otherwise a form
    /// with the posted fields (passwords and user names empty inputs, buttons as buttons, the
    /// rest hidden with their recorded values).
    private mutating func synthesizedForm(posting next: Working, from index: Int) -> String {
        let number = entries[index].number
        let action = HTMLText.escape(next.exchange.url)
        if let carried = next.request.carries, let message = messages.firstIndex(where: { $0.name == carried }),
           messages[message].binding == .post, found.first(where: { $0.name == carried })?.served == false {
            messages[message].entry = number
            if let position = found.firstIndex(where: { $0.name == carried }) {
                found[position].served = true
                found[position].entry = number
            }
            let kind = messages[message].kind == .request ? "SAMLRequest" : "SAMLResponse"
            var html = "<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"><title>Continue</title></head>\n"
            html += "<body onload=\"document.forms[0].submit()\">\n<form method=\"post\" "
                + "action=\"\(ReplayTemplate.escape(action))\">\n"
            if let relay = next.formParams.first(where: { $0.name == "RelayState" })?.value {
                html += "<input type=\"hidden\" name=\"RelayState\" "
                    + "value=\"\(ReplayTemplate.escape(HTMLText.escape(relay)))\"/>\n"
            }
            html += "<input type=\"hidden\" name=\"\(kind)\" "
                + "value=\"\(ReplayTemplate.placeholder("msg." + carried, .base64))\"/>\n"
            html += "<noscript><input type=\"submit\" value=\"Continue\"/></noscript>\n</form>\n</body>\n</html>\n"
            warn(number, "the answer's body was not recorded; synthesized the auto-posting form of the \(kind) "
                + "that entry \(next.number) posts")
            return html
        }
        var html = "<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"><title>Form</title></head>\n<body>\n"
        html += "<form method=\"post\" action=\"\(ReplayTemplate.escape(action))\">\n"
        for (name, value) in next.formParams {
            let escapedName = ReplayTemplate.escape(HTMLText.escape(name))
            if Self.isPasswordField(name) {
                html += "<input type=\"password\" name=\"\(escapedName)\" value=\"\"/>\n"
            } else if Self.isUsernameField(name) {
                html += "<input type=\"text\" name=\"\(escapedName)\" value=\"\"/>\n"
            } else if Self.isButton(name) {
                html += "<button type=\"submit\" name=\"\(escapedName)\" "
                    + "value=\"\(ReplayTemplate.escape(HTMLText.escape(value)))\">\(escapedName)</button>\n"
            } else {
                html += "<input type=\"hidden\" name=\"\(escapedName)\" "
                    + "value=\"\(ReplayTemplate.escape(HTMLText.escape(value)))\"/>\n"
            }
        }
        html += "</form>\n</body>\n</html>\n"
        warn(number, "the answer's body was not recorded; synthesized a form with the fields entry "
            + "\(next.number) posts (\(Array(Set(next.formParams.map(\.name))).sorted().joined(separator: ", ")))")
        return html
    }

    static func isPasswordField(_ name: String) -> Bool {
        let lower = name.lowercased()
        return ["password", "passwd", "pass", "pwd", "j_password", "credential", "credentials", "passcode", "pin"]
            .contains(lower) || lower.hasSuffix("password") || lower.hasSuffix("_pass") || lower.hasSuffix("passwd")
    }

    static func isUsernameField(_ name: String) -> Bool {
        let lower = name.lowercased()
        return ["username", "user", "j_username", "login", "email", "userid", "user_id", "uid", "loginfmt", "identifier"]
            .contains(lower) || lower.hasSuffix("username")
    }

    static func isButton(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix("_eventid") || ["submit", "signin", "sign_in", "proceed", "continue"].contains(lower)
    }
}
