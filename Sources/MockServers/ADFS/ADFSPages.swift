import Foundation
import SAMLCore

/// The HTML AD FS serves on its passive pages, reduced to what a client drives but with the
/// element ids, names, nesting and field order of real pages (sources in docs/adfs.md, "The
/// pages"). Two versions: Windows Server 2016, whose default theme is 2012 R2's (the error
/// text in `<label id="errorText">`), and 2019 (`<span id="errorText" aria-live="assertive"
/// role="alert">`, hidden labels for the inputs, `<main>` and `<footer>`). Every value is
/// HTML-escaped.
enum ADFSPages {
    typealias Version = ADFSKnob.Pages

    static let serviceName = "SAMLHarness AD FS"

    /// The `adfs-pages` knob among `knobs` (2016 without it).
    static func version(_ knobs: [Knob]) -> Version {
        for case .adfs(.pages(let version)) in knobs { return version }
        return .ws2016
    }

    private static func page(title: String, version: Version, _ body: String) -> String {
        let e = HTMLText.escape
        let v2019 = version == .ws2019
        return """
        <!DOCTYPE html>
        <html lang="en-US">
        <head>
        <meta http-equiv="X-UA-Compatible" content="\(v2019 ? "IE=edge" : "IE=10.000")"/>
        <meta name="viewport" content="width=device-width, initial-scale=1.0, \(v2019 ? "user-scalable=1" : "maximum-scale=1.0, user-scalable=no")"/>
        <meta http-equiv="content-type" content="text/html;charset=UTF-8" />
        <meta http-equiv="cache-control" content="no-cache,no-store"/>
        <meta http-equiv="pragma" content="no-cache"/>
        <meta http-equiv="expires" content="-1"/>
        <meta name='mswebdialog-title' content='Connecting to \(e(serviceName))'/>
        <title>\(e(title))</title>
        </head>
        <body dir="ltr" class="body">
        <div id="fullPage">
        <div id="brandingWrapper" class="float"><div id="branding"></div></div>
        <div id="contentWrapper" class="float">
        <div id="content">
        <div id="header">\(v2019 ? "<h4>\(e(serviceName))</h4>" : e(serviceName))</div>
        \(v2019 ? "<main>\n" : "")<div id="workArea">
        \(body)
        </div>\(v2019 ? "\n</main>" : "")
        <div id="footerPlaceholder"></div>
        </div>
        <\(v2019 ? "footer" : "div") id="footer"><div id="footerLinks" class="floatReverse"><div><span id="copyright">&#169; \(v2019 ? "2018" : "2013") Microsoft</span></div></div></\(v2019 ? "footer" : "div")>
        </div>
        </div>
        </body>
        </html>

        """
    }

    /// The forms sign-in page: `form#loginForm` (error, user name, password, hidden Kmsi,
    /// the "Sign in" `span` driven by script, hidden `AuthMethod=FormsAuthentication`), then
    /// the `form#options` of the other authentication methods. There is no submit button: a
    /// client without JavaScript submits `loginForm` as Enter does.
    static func formsSignIn(action: String, error: String?, username: String, version: Version) -> String {
        let e = HTMLText.escape
        let v2019 = version == .ws2019
        let errorText = v2019
            ? "<span id=\"errorText\" for=\"\" aria-live=\"assertive\" role=\"alert\">\(e(error ?? ""))</span>"
            : "<label id=\"errorText\" for=\"\">\(e(error ?? ""))</label>"
        let userLabel = v2019 ? "<label id=\"userNameInputLabel\" for=\"userNameInput\" class=\"hidden\">User Account</label>\n" : ""
        let passwordLabel = v2019 ? "<label id=\"passwordInputLabel\" for=\"passwordInput\" class=\"hidden\">Password</label>\n" : ""
        let optionsUser = v2019 ? "\n<input id=\"userNameInputOptionsHolder\" name=\"UserName\" value=\"\(e(username))\" type=\"hidden\"/>" : ""
        return page(title: "Sign In", version: version, """
        <div id="authArea" class="groupMargin">
        <div id="loginArea">
        <div id="loginMessage" class="groupMargin">\(v2019 ? "Sign in" : "Sign in with your organizational account")</div>
        <form method="post" id="loginForm" autocomplete="off" novalidate="novalidate" onKeyPress="if (event &amp;&amp; event.keyCode == 13) Login.submitLoginRequest();" action="\(e(action))" >
        <div id="error" class="fieldMargin error smallText">
        \(errorText)
        </div>
        <div id="formsAuthenticationArea">
        <div id="userNameArea">
        \(userLabel)<input id="userNameInput" name="UserName" type="email" value="\(e(username))" tabindex="1" class="text fullWidth" spellcheck="false" placeholder="someone@example.com" autocomplete="off"/>
        </div>
        <div id="passwordArea">
        \(passwordLabel)<input id="passwordInput" name="Password" type="password" tabindex="2" class="text fullWidth" placeholder="Password" autocomplete="off"/>
        </div>
        <div id="kmsiArea" style="display:none">
        <input type="checkbox" name="Kmsi" id="kmsiInput" value="true" tabindex="3" />
        <label for="kmsiInput">Keep me signed in</label>
        </div>
        <div id="submissionArea" class="submitMargin">
        <span id="submitButton" class="submit" tabindex="4"\(v2019 ? " role=\"button\"" : "") onKeyPress="if (event &amp;&amp; event.keyCode == 32) Login.submitLoginRequest();" onclick="return Login.submitLoginRequest();">Sign in</span>
        </div>
        </div>
        <input id="optionForms" type="hidden" name="AuthMethod" value="FormsAuthentication"/>
        </form>
        <div id="authOptions">
        <form id="options" method="post" action="\(e(action))">
        <input id="optionSelection" type="hidden" name="AuthMethod" />\(optionsUser)
        <div class='groupMargin'></div>
        </form>
        </div>
        <div id="introduction" class="groupMargin"></div>
        <script type="text/javascript">
        var Login = { submitLoginRequest: function () {
          var u = document.getElementById('userNameInput'), p = document.getElementById('passwordInput');
          if (!u.value || !p.value) { document.getElementById('errorText').innerHTML = 'Enter your user ID and password.'; return false; }
          document.forms['loginForm'].submit(); return false; } };
        </script>
        </div>
        </div>
        """)
    }

    /// `IdpInitiatedSignOn.aspx`: the status ("You are not signed in." / "You are signed in.")
    /// and the choice between this site (radio `SignInIdpSite`, checked) and one of the
    /// relying parties (radio `SignInOtherSite` and the select `RelyingParty`, disabled until
    /// that radio is chosen — AD FS's script enables it; a browser does not submit a disabled
    /// select), submitted by `SignInSubmit`.
    static func signOn(relyingParties: [ADFSRelyingParty], signedIn: Bool, action: String, version: Version) -> String {
        let e = HTMLText.escape
        let options = relyingParties.map { "<option value=\"\(e($0.identifier))\">\(e($0.name))</option>" }.joined(separator: "\n")
        let status = signedIn ? "You are signed in." : "You are not signed in."
        return page(title: "Sign In", version: version, """
        <div id="idp_SignInPanel">
        <form method="post" id="idpForm" action="\(e(action))">
        <div id="idp_SignInThisSiteStatusLabel" class="groupMargin"><span>\(status)</span></div>
        <div id="idp_ThisRpPanel" class="groupMargin"><input id="idp_ThisRpRadioButton" name="SignInIdpSite" type="radio" value="SignInIdpSite" checked="checked" onclick="document.getElementById('idp_RelyingPartyDropDownList').disabled = true; document.getElementById('idp_OtherRpRadioButton').checked = false;"/><label for="idp_ThisRpRadioButton">Sign in to this site.</label></div>
        <div id="idp_OtherRpPanel" class="groupMargin"><input id="idp_OtherRpRadioButton" name="SignInOtherSite" type="radio" value="SignInOtherSite" onclick="document.getElementById('idp_RelyingPartyDropDownList').disabled = false; document.getElementById('idp_ThisRpRadioButton').checked = false;"/><label for="idp_OtherRpRadioButton">Sign in to one of the following sites:</label></div>
        <div id="idp_SignInToOtherRpPanel" class="groupMargin">
        <label id="idp_RelyingPartyDropDownListLabel" for="idp_RelyingPartyDropDownList" class="hidden">Sites</label>
        <select id="idp_RelyingPartyDropDownList" name="RelyingParty" class="text fullWidth" disabled="disabled">
        \(options)
        </select>
        </div>
        <div id="idp_SignInButtonArea" class="submitMargin"><input id="idp_SignInButton" type="submit" name="SignInSubmit" value="Sign in" class="submit"/></div>
        </form>
        </div>
        """)
    }

    /// AD FS's error page: a generic message and the error details (activity ID, relying
    /// party, time). Real AD FS keeps the MSIS text for its event log; the mock shows it
    /// too, in `errorDetailsMessage`, so a test can read it.
    static func error(activityID: String, relyingParty: String?, detail: String, time: Date, userAgent: String,
                      version: Version) -> String {
        let e = HTMLText.escape
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return page(title: "Sign In", version: version, """
        <div id="errorArea">
        <div id="openingMessage" class="groupMargin bigText">An error occurred</div>
        <div id="errorMessage" class="groupMargin">An error occurred. Contact your administrator for more information.</div>
        <div id="error-details">
        <div id="errorDetailsTitle" class="groupMargin">Error details</div>
        <ul id="errorDetailsList">
        <li>Activity ID: <span id="activityId">\(e(activityID))</span></li>
        \(relyingParty.map { "<li>Relying party: <span id=\"relyingParty\">\(e($0))</span></li>" } ?? "")
        <li>Error time: <span id="timestamp">\(e(formatter.string(from: time)))</span></li>
        <li>Cookie: <span>enabled</span></li>
        <li>User agent string: <span>\(e(userAgent))</span></li>
        </ul>
        <div id="errorDetailsMessage">\(e(detail))</div>
        </div>
        </div>
        """)
    }

    /// The auto-post page AD FS answers a signed-in user with: "Working...", `form
    /// name="hiddenform"` posting to the ACS written with its port (`https://host:443/…`), the
    /// message field first and RelayState after it, a `noscript` Submit, and a script that
    /// submits `forms[0]`.
    static func autoPost(action: String, encodedMessage: String, relayState: String?) -> String {
        let e = HTMLText.escape
        var fields = "<input type=\"hidden\" name=\"SAMLResponse\" value=\"\(e(encodedMessage))\" />"
        if let relayState { fields += "<input type=\"hidden\" name=\"RelayState\" value=\"\(e(relayState))\" />" }
        return "<html><head><title>Working...</title></head><body><form method=\"POST\" name=\"hiddenform\" action=\"\(e(withPort(action)))\">"
            + fields
            + "<noscript><p>Script is disabled. Click Submit to continue.</p><input type=\"submit\" value=\"Submit\" /></noscript></form>"
            + "<script language=\"javascript\">window.setTimeout('document.forms[0].submit()', 0);</script></body></html>"
    }

    /// `url` with its scheme's default port written out, as AD FS writes form actions.
    static func withPort(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.port == nil, components.host != nil else { return url }
        switch components.scheme?.lowercased() {
        case "https": components.port = 443
        case "http": components.port = 80
        default: return url
        }
        return components.string ?? url
    }

    /// A GUID-shaped activity ID from random hex.
    static func activityID(from hex: String) -> String {
        let digits = Array((hex + String(repeating: "0", count: 32)).prefix(32))
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }
        return groups.joined(separator: "-")
    }
}
