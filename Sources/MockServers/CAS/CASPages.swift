import SAMLCore

/// The HTML pages of the CAS server, shaped like Apereo CAS 6's Thymeleaf views (`fm1` form,
/// `username`/`password`, hidden `execution` and `_eventId=submit`, plus CAS 3/4's `lt`),
/// texts from its `messages.properties`. Every value is HTML-escaped.
enum CASPages {
    static func page(title: String, body: String, status: Int = 200) -> MockResponse {
        .html("""
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="UTF-8"><title>\(HTMLText.escape(title))</title></head>
        <body><main role="main" class="container mt-3 mb-3">
        \(body)
        </main></body></html>

        """, status: status)
    }

    /// `casLoginView`.
    static func login(flow: CASLoginFlow, error: String?, username: String = "", status: Int = 200) -> MockResponse {
        let banner = error.map { "<div id=\"loginErrorsPanel\" class=\"banner banner-danger alert alert-danger\"><p>\(HTMLText.escape($0))</p></div>\n" } ?? ""
        return page(title: "CAS - Central Authentication Service Login", body: """
        <h1>Central Authentication Service</h1>
        \(banner)<form method="post" id="fm1" action="/cas/login">
        <h3>Enter Username &amp; Password</h3>
        <section class="cas-field"><label for="username">Username:</label>
        <input class="required" id="username" size="25" tabindex="1" type="text" accesskey="u" autocomplete="off" name="username" value="\(HTMLText.escape(username))"></section>
        <section class="cas-field"><label for="password">Password:</label>
        <input class="required" type="password" id="password" size="25" tabindex="2" accesskey="p" autocomplete="off" name="password" value=""></section>
        <input type="hidden" name="execution" value="\(HTMLText.escape(flow.execution))">
        <input type="hidden" name="lt" value="\(HTMLText.escape(flow.loginTicket))">
        <input type="hidden" name="_eventId" value="submit">
        <input type="hidden" name="geolocation" value="">
        <button class="mdc-button mdc-button--raised" name="submitBtn" accesskey="l" tabindex="6" type="submit" value="LOGIN">LOGIN</button>
        </form>
        """, status: status)
    }

    /// `casGenericSuccessView`: logged in, but no service to go to.
    static func loggedIn(_ username: String) -> MockResponse {
        page(title: "CAS - Log In Successful", body: """
        <h2>Log In Successful</h2>
        <p id="success">You, <strong>\(HTMLText.escape(username))</strong>, have successfully logged into the Central Authentication Service. However, you are seeing this page because CAS does not know about your target destination and how to get you there. Examine the authentication request again and make sure a target service/application that is authorized and registered with CAS is specified.</p>
        <p>When you are finished, for security reasons, please <a href="logout">log out</a> and exit your web browser.</p>
        """)
    }

    /// `casLogoutView`; CAS 3's `url` parameter becomes a link to follow.
    static func loggedOut(link: String?) -> MockResponse {
        let follow = link.map { "<p>The application you just logged out of has provided a link it would like you to follow. Please <a href=\"\(HTMLText.escape($0))\">click here</a> to access \(HTMLText.escape($0))</p>\n" } ?? ""
        return page(title: "CAS - Logout successful", body: """
        <h2>Logout successful</h2>
        <p>You have successfully logged out of the Central Authentication Service. You may <a href="login">log in</a> again.</p>
        \(follow)<p>For security reasons, exit your web browser.</p>
        """)
    }

    /// `casServiceErrorView`: the service is not one CAS will send a ticket to.
    static func unauthorizedService() -> MockResponse {
        page(title: "CAS - Application Not Authorized to Use CAS", body: """
        <h2>Application Not Authorized to Use CAS</h2>
        <p>The application you attempted to authenticate to is not authorized to use CAS. This usually indicates that the application is not registered with CAS, or its authorization policy defined in its registration record prevents it from leveraging CAS functionality, or it's malformed and unrecognized by CAS. Contact your CAS administrator to learn how you might register and integrate your application with CAS.</p>
        """, status: 403)
    }
}
