import Foundation
import SAMLCore

/// The HTML AD FS (Windows Server 2016/2019 "paginated" theme) serves on its passive pages,
/// reduced to what a client drives: element ids, field names and texts as AD FS has them.
/// Every value is HTML-escaped.
enum ADFSPages {
    static let serviceName = "SAMLHarness AD FS"

    private static func page(title: String, _ body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en-US">
        <head><meta http-equiv="X-UA-Compatible" content="IE=edge"/><meta name="viewport" content="width=device-width, initial-scale=1.0"/>
        <meta http-equiv="content-type" content="text/html;charset=UTF-8"/><title>\(HTMLText.escape(title))</title></head>
        <body dir="ltr" class="body">
        <div id="fullPage"><div id="contentWrapper" class="float"><div id="content">
        <div id="header"><h1 class="logoTitle">\(HTMLText.escape(serviceName))</h1></div>
        <div id="workArea">
        \(body)
        </div>
        <div id="footerPlaceholder"></div>
        </div></div></div>
        </body>
        </html>

        """
    }

    /// The forms sign-in page. Its "Sign in" is a `span` driven by script, as on AD FS (no
    /// submit button): a browser without JavaScript submits the form with Enter.
    static func formsSignIn(action: String, rp: ADFSRelyingParty?, error: String?, username: String) -> String {
        let e = HTMLText.escape
        return page(title: "Sign In", """
        <div id="authArea" class="groupMargin">
        <div id="loginArea">
        <div id="loginMessage" class="groupMargin">Sign in with your organizational account</div>
        <form method="post" id="loginForm" autocomplete="off" novalidate="novalidate" onKeyPress="if (event &amp;&amp; event.keyCode == 13) Login.submitLoginRequest();" action="\(e(action))">
        <div id="error" class="fieldMargin error smallText"\(error == nil ? " style=\"display:none\"" : "")><span id="errorText" for="">\(e(error ?? ""))</span></div>
        <div id="formsAuthenticationArea">
        <div id="userNameArea"><label id="userNameInputLabel" for="userNameInput" class="hidden">User Account</label>
        <input id="userNameInput" name="UserName" type="email" value="\(e(username))" tabindex="1" class="text fullWidth" spellcheck="false" placeholder="someone@example.com" autocomplete="off"/></div>
        <div id="passwordArea"><label id="passwordInputLabel" for="passwordInput" class="hidden">Password</label>
        <input id="passwordInput" name="Password" type="password" tabindex="2" class="text fullWidth" placeholder="Password" autocomplete="off"/></div>
        <div id="kmsiArea" style="display:none"><input type="checkbox" name="Kmsi" id="kmsiInput" value="true" tabindex="3"/><label for="kmsiInput">Keep me signed in</label></div>
        <div id="submissionArea" class="submitMargin"><span id="submitButton" class="submit" tabindex="4" role="button" onKeyPress="if (event &amp;&amp; event.keyCode == 32 || event.keyCode == 13) Login.submitLoginRequest();" onclick="return Login.submitLoginRequest();">Sign in</span></div>
        </div>
        <input id="optionForms" type="hidden" name="AuthMethod" value="FormsAuthentication"/>
        </form>
        \(rp.map { "<div id=\"rpName\" class=\"groupMargin\">\(e($0.name))</div>" } ?? "")
        </div>
        </div>
        <script type="text/javascript">
        var Login = { submitLoginRequest: function () {
          var u = document.getElementById('userNameInput'), p = document.getElementById('passwordInput');
          if (!u.value || !p.value) { document.getElementById('errorText').innerHTML = 'Enter your user ID and password.'; return false; }
          document.forms['loginForm'].submit(); return false; } };
        </script>
        """)
    }

    /// `IdpInitiatedSignOn.aspx`: "You are not signed in." with the choice between this
    /// site and one of the relying parties, or "You are signed in." once signed in.
    static func signOn(relyingParties: [ADFSRelyingParty], signedIn: String?, action: String) -> String {
        let e = HTMLText.escape
        let options = relyingParties.map { "<option value=\"\(e($0.identifier))\">\(e($0.name))</option>" }.joined(separator: "\n")
        let status = signedIn.map { "You are signed in as \(e($0))." } ?? "You are not signed in."
        return page(title: "Sign In", """
        <div id="idp_SignInPanel">
        <form method="post" id="idpForm" action="\(e(action))">
        <div id="idp_SignInThisSiteStatusLabel" class="groupMargin">\(status)</div>
        <div class="groupMargin"><input id="idp_SignInThisSiteRadioButton" name="SignInIdpSite" type="radio" value="SignInIdpSite" checked="checked"/><label for="idp_SignInThisSiteRadioButton">Sign in to this site.</label></div>
        <div class="groupMargin"><input id="idp_SignInOtherSiteRadioButton" name="SignInOtherSite" type="radio" value="SignInOtherSite"/><label for="idp_SignInOtherSiteRadioButton">Sign in to one of the following sites:</label></div>
        <div class="groupMargin"><select id="idp_RelyingPartyDropDownList" name="RelyingParty" class="text fullWidth">
        \(options)
        </select></div>
        <input type="hidden" name="SingleSignOut" value="SingleSignOut"/>
        <div id="idp_SignInButtonArea" class="submitMargin"><input id="idp_SignInButton" type="submit" name="SignInSubmit" value="Sign in" class="submit"/></div>
        </form>
        </div>
        """)
    }

    /// AD FS's error page: a generic message and the error details (activity ID, relying
    /// party, time). Real AD FS keeps the MSIS text for its event log; the mock shows it
    /// too, in `errorDetailsMessage`, so a test can read it.
    static func error(activityID: String, relyingParty: String?, detail: String, time: Date, userAgent: String) -> String {
        let e = HTMLText.escape
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return page(title: "Sign In", """
        <div id="errorArea">
        <div id="openingMessage" class="groupMargin bigText">An error occurred</div>
        <div id="errorMessage" class="groupMargin">An error occurred. Contact your administrator for more information.</div>
        <div id="error-details">
        <div id="errorDetailsTitle" class="groupMargin">Error details</div>
        <ul id="errorDetailsList">
        <li>Activity ID: <span id="activityId">\(e(activityID))</span></li>
        \(relyingParty.map { "<li>Relying party: <span id=\"relyingParty\">\(e($0))</span></li>" } ?? "")
        <li>Error time: <span id="errorTime">\(e(formatter.string(from: time)))</span></li>
        <li>Cookie: <span>enabled</span></li>
        <li>User agent string: <span>\(e(userAgent))</span></li>
        </ul>
        <div id="errorDetailsMessage">\(e(detail))</div>
        </div>
        </div>
        """)
    }

    /// A GUID-shaped activity ID from random hex.
    static func activityID(from hex: String) -> String {
        let digits = Array((hex + String(repeating: "0", count: 32)).prefix(32))
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }
        return groups.joined(separator: "-")
    }
}
