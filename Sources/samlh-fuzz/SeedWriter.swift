import Foundation
import SAMLCore

/// Writes the seed corpus of Tests/Fuzz/seeds: one valid input per decoder, built with the
/// committed test keys at a frozen instant (the one ``FuzzEntry``'s SP settings expect), plus
/// broken variants. Same bytes on every run.
struct SeedWriter {
    static let idp = "https://idp.example.org/idp/shibboleth"
    static let sp = "https://sp.example.org/shibboleth"
    static let acs = "https://sp.example.org/Shibboleth.sso/SAML2/POST"
    static let sso = "https://idp.example.org/idp/profile/SAML2/Redirect/SSO"
    static let clock = FixedClock(Date(timeIntervalSince1970: 1_900_000_000))

    let key: PrivateKey
    let certificate: Certificate

    init(keysDirectory: URL) throws {
        key = try PrivateKey(contentsOf: keysDirectory.appendingPathComponent("idp-key.pem"))
        certificate = try Certificate(contentsOf: keysDirectory.appendingPathComponent("idp-cert.pem"))
    }

    /// Writes every seed into `directory`; returns how many.
    func write(to directory: URL) throws -> Int {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let seeds = try makeSeeds()
        for (name, target, payload) in seeds {
            let url = directory.appendingPathComponent("\(target.name)-\(name)")
            try Data(FuzzEntry.input(target, payload)).write(to: url)
        }
        return seeds.count
    }

    private func makeSeeds() throws -> [(String, FuzzEntry.Target, [UInt8])] {
        let response = Array(try signedResponse().utf8)
        let request = Array(AuthnRequest.make(issuer: Self.sp, destination: Self.sso, assertionConsumerServiceURL: Self.acs,
                                              clock: Self.clock, ids: SeededIDGenerator(seed: 3)).xml().utf8)
        let logout = Array(LogoutRequest.make(issuer: Self.sp, destination: Self.sso, nameID: NameID("alice@example.org"),
                                              sessionIndexes: ["_s1"], clock: Self.clock, ids: SeededIDGenerator(seed: 4)).xml().utf8)
        let logoutResponse = Array(LogoutResponse.make(issuer: Self.idp, destination: Self.acs, inResponseTo: "_l1",
                                                       clock: Self.clock, ids: SeededIDGenerator(seed: 5)).xml().utf8)
        let plain = try RedirectBinding.url(destination: Self.sso, message: request, kind: .request, relayState: "ss:mem:1")
        let signed = try RedirectBinding.url(destination: Self.sso, message: request, kind: .request, relayState: "ss:mem:1",
                                             signer: RedirectSigner(key: key))
        let zlib = try RedirectBinding.encode(request, kind: .request,
                                              options: .init(framing: .zlib, base64LineLength: 76, leavePlusUnencoded: true))
        let postValue = PostBinding.encode(response)
        let deflatedPost = SAMLBase64.encode(try RawDeflate.compress(response))
        var flipped = response
        if let i = flipped.firstIndex(of: UInt8(ascii: "@")) { flipped[i] = UInt8(ascii: "#") }  // breaks the signature
        let nested = String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)
        let laughs = "<!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]><r>&b;&b;</r>"
        let xxe = "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>"
        let paos = PAOSRequest(responseConsumerURL: Self.acs, messageID: "_m1", issuer: Self.sp, relayState: "rs",
                               authnRequest: String(decoding: request, as: UTF8.self)).envelope()
        let form = PostBinding.autoSubmitForm(action: Self.acs, message: response, kind: .response, relayState: "ss:mem:1")
        let doubleEncoded = PercentEncoding.queryComponentEncode(PercentEncoding.queryComponentEncode(postValue))
        return [
            ("signed-response", .spValidator, response),
            ("signature-broken", .spValidator, flipped),
            ("truncated-response", .spValidator, Array(response.prefix(response.count / 2))),
            ("response", .samlModel, response),
            ("authn-request", .samlModel, request),
            ("logout-request", .samlModel, logout),
            ("logout-response", .samlModel, logoutResponse),
            ("response", .xml, response),
            ("nested-300", .xml, Array(nested.utf8)),
            ("billion-laughs", .xml, Array(laughs.utf8)),
            ("xxe-file", .xml, Array(xxe.utf8)),
            ("authn-request", .redirect, Array(plain.utf8)),
            ("authn-request-signed", .redirect, Array(signed.utf8)),
            ("authn-request-zlib-wrapped", .redirect, Array(zlib.utf8)),
            ("response", .postValue, Array(postValue.utf8)),
            ("response-deflated", .postValue, Array(deflatedPost.utf8)),
            ("response-base64-truncated", .postValue, Array(postValue.utf8.prefix(postValue.utf8.count / 2 + 1))),
            ("form-body", .postForm, Array(PostBinding.formBody(message: response, kind: .response, relayState: "ss:mem:1").utf8)),
            ("raw-deflate", .inflate, try RawDeflate.compress(request)),
            ("gzip", .inflate, try RawDeflate.compress(request, framing: .gzip)),
            ("wrapped-urlsafe", .base64, Array(SAMLBase64.encode(request, wrappingAt: 64, lineEnding: "\n")
                .replacingOccurrences(of: "+", with: "-").utf8)),
            ("query", .query, Array("?SAMLRequest=fZ%2b%2F&RelayState=a+b%20c&SigAlg=%zz&&=x&Signature".utf8)),
            ("double-encoded", .diagnosis, [0] + Array(doubleEncoded.utf8) + [0] + Array(postValue.utf8)),
            ("redirect-plus-as-space", .diagnosis, [1] + Array(SAMLBase64.encode(try RawDeflate.compress(request))
                .replacingOccurrences(of: "+", with: " ").utf8)),
            ("paos-request", .envelope, Array(paos.utf8)),
            ("auto-submit-form", .envelope, Array(form.utf8)),
        ]
    }

    private func signedResponse() throws -> String {
        let factory = SignedResponseFactory(idpEntityID: Self.idp, signer: XMLSigner(key: key, certificate: certificate),
                                            signingMode: .both)
        let login = SignedResponseFactory.Login(
            nameID: NameID("alice@example.org", format: NameIDFormat.emailAddress), spEntityID: Self.sp, acsURL: Self.acs,
            inResponseTo: "_req1",
            attributes: [Attribute(name: "urn:oid:0.9.2342.19200300.100.1.3", friendlyName: "mail", strings: ["alice@example.org"])])
        return try factory.response(for: login, clock: Self.clock, ids: SeededIDGenerator(seed: 7))
    }
}
