import Testing
@testable import SAMLCore

@Suite struct BindingsHTMLFormTests {
    @Test func realWorldQuotingCaseAndEntities() {
        let page = """
        <!DOCTYPE html><HTML><head><script>var s = "<form action='/evil'>";</script>
        <style>form { x: "<form>" }</style></head>
        <body onload="document.forms[0].submit()">
        <!-- <form action="/commented-out"> -->
        <FORM Method=POST ACTION="https&#x3a;//sp.example.org/Shibboleth.sso/SAML2/POST?a=1&amp;b=2" id=f1>
        <INPUT TYPE=hidden NAME=RelayState VALUE=ss&#58;mem&#58;abc>
        <input type='hidden' name='SAMLResponse' value='PHNhbWxwOlJlc3BvbnNlIHZhbHVlPSImcXVvdDsiLz4=' />
        <input type="hidden" name="q" value="&quot;quoted&quot; &lt;tag&gt; &#x1F600; &#0;">
        <input type="submit" value="Continue">
        <input name=noValue>
        </FORM>
        <input type="hidden" name="outside" value="x">
        """
        let forms = HTMLFormParser.forms(in: page)
        #expect(forms.count == 1)
        let form = forms[0]
        #expect(form.action == "https://sp.example.org/Shibboleth.sso/SAML2/POST?a=1&b=2")
        #expect(form.method == "post")
        #expect(form.id == "f1")
        #expect(form.fields.map(\.name) == ["RelayState", "SAMLResponse", "q", "noValue"])
        #expect(form.value("RelayState") == "ss:mem:abc")
        #expect(form.value("SAMLResponse") == "PHNhbWxwOlJlc3BvbnNlIHZhbHVlPSImcXVvdDsiLz4=")
        #expect(form.value("q") == "\"quoted\" <tag> 😀 \u{FFFD}")
        #expect(form.value("noValue") == "")
        #expect(form.formURLEncodedBody.hasPrefix("RelayState=ss%3Amem%3Aabc&SAMLResponse=PHNhbWxwOlJlc3BvbnNlIHZhbHVlPSImcXVvdDsiLz4%3D&q="))
    }

    @Test func severalFormsAndDefaults() {
        let forms = HTMLFormParser.forms(in: "<form><input name=a value=1></form><form action=/login method=Post><input name=b value=2>")
        #expect(forms.count == 2)
        #expect(forms[0].action == nil && forms[0].method == "get")
        #expect(forms[1].action == "/login" && forms[1].method == "post" && forms[1].value("b") == "2")
    }

    @Test func garbageNeverCrashesAndIsBounded() {
        let inputs = ["<", "<form", "<form action=\"", "<form action='x", "<<<>>>", "&#xFFFFFFFFFF;",
                      "<form><input name=\"a\" value=\"&#99999999999999999999", "<!--", "<script>",
                      "<form/><input/name=x/value=y>", String(repeating: "<form a=", count: 5000)]
        for input in inputs { _ = HTMLFormParser.forms(in: input) }
        #expect(HTMLFormParser.forms(in: "<form action='x").first?.action == "x")
        #expect(HTMLFormParser.forms(in: "<form><input name=\"a\" value=\"&#99999999999999999999\"></form>").first?.value("a") == "\u{FFFD}")
        let many = String(repeating: "<form></form>", count: 1000)
        #expect(HTMLFormParser.forms(in: many).count == 64)
    }

    @Test func entityDecoding() {
        #expect(HTMLText.decodeEntities("a&amp;b&#58&#x3A;&unknown;&") == "a&b::&unknown;&")
        #expect(HTMLText.escape("&<>\"'") == "&amp;&lt;&gt;&quot;&#39;")
    }
}
