import Foundation

/// One `WWW-Authenticate` / `Proxy-Authenticate` challenge (RFC 9110 §11.6.1).
struct Challenge: Equatable {
    /// Lower-cased scheme: `basic`, `digest`…
    var scheme: String
    /// Parameters, names lower-cased.
    var parameters: [String: String]

    /// Parses a header field that may hold several challenges (Linux Foundation joins
    /// repeated `WWW-Authenticate` headers with ", "): a token not followed by `=` starts
    /// the next challenge.
    static func parse(_ field: String) -> [Challenge] {
        var challenges: [Challenge] = []
        let characters = Array(field)
        var index = 0
        func skip(_ set: Set<Character>) { while index < characters.count, set.contains(characters[index]) { index += 1 } }
        func token() -> String {
            let start = index
            while index < characters.count, !" \t,=\"".contains(characters[index]) { index += 1 }
            return String(characters[start..<index])
        }
        while index < characters.count {
            skip([" ", "\t", ","])
            let name = token()
            guard !name.isEmpty else { index += 1; continue }
            let save = index
            skip([" ", "\t"])
            if index < characters.count, characters[index] == "=", !challenges.isEmpty {
                index += 1
                skip([" ", "\t"])
                var value = ""
                if index < characters.count, characters[index] == "\"" {
                    index += 1
                    while index < characters.count, characters[index] != "\"" {
                        if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                        value.append(characters[index])
                        index += 1
                    }
                    index += 1
                } else {
                    value = token()
                }
                challenges[challenges.count - 1].parameters[name.lowercased()] = value
            } else {
                index = save
                challenges.append(Challenge(scheme: name.lowercased(), parameters: [:]))
            }
        }
        return challenges
    }

    /// RFC 7617: `Basic base64(user ":" password)`, UTF-8 (the charset the mocks announce).
    static func basicCredentials(username: String, password: String) -> String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
}

/// RFC 7616 Digest with `qop=auth`, MD5 or SHA-256, counting `nc` per nonce.
struct DigestAuthenticator {
    var challenge: Challenge
    var nonceCount = 0

    /// The strongest Digest challenge offered (SHA-256 before MD5), if any.
    static func best(of challenges: [Challenge]) -> Challenge? {
        let digests = challenges.filter { $0.scheme == "digest" && algorithm(of: $0) != nil }
        return digests.first { algorithm(of: $0) == "SHA-256" } ?? digests.first
    }

    /// "MD5", "SHA-256" (also their `-sess` forms), nil for an algorithm not implemented.
    static func algorithm(of challenge: Challenge) -> String? {
        let name = (challenge.parameters["algorithm"] ?? "MD5").uppercased()
        return ["MD5", "MD5-SESS", "SHA-256", "SHA-256-SESS"].contains(name) ? name : nil
    }

    /// The `Authorization` value for `method` on `url`.
    mutating func authorization(method: String, url: URL, username: String, password: String) -> String {
        nonceCount += 1
        let algorithm = Self.algorithm(of: challenge) ?? "MD5"
        let hash: (String) -> String = algorithm.hasPrefix("SHA-256") ? { SHA256.hex(Array($0.utf8)) } : { MD5.hex(Array($0.utf8)) }
        let realm = challenge.parameters["realm"] ?? ""
        let nonce = challenge.parameters["nonce"] ?? ""
        let cnonce = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let nc = String(format: "%08x", nonceCount)
        var uri = url.path(percentEncoded: true)
        if uri.isEmpty { uri = "/" }
        if let query = url.query(percentEncoded: true) { uri += "?" + query }
        // RFC 7616 §3.4.2: A1 = user:realm:password (-sess: H(A1):nonce:cnonce); §3.4.3: A2 = method:uri.
        var ha1 = hash("\(username):\(realm):\(password)")
        if algorithm.hasSuffix("-SESS") { ha1 = hash("\(ha1):\(nonce):\(cnonce)") }
        let ha2 = hash("\(method):\(uri)")
        let qops = (challenge.parameters["qop"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var fields = ["username=\"\(username)\"", "realm=\"\(realm)\"", "nonce=\"\(nonce)\"", "uri=\"\(uri)\"",
                      "algorithm=\(algorithm == "MD5" ? "MD5" : algorithm)"]
        if qops.contains("auth") {
            // RFC 7616 §3.4.1: response = H(HA1:nonce:nc:cnonce:qop:HA2).
            fields.append("response=\"\(hash("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)"))\"")
            fields += ["qop=auth", "nc=\(nc)", "cnonce=\"\(cnonce)\""]
        } else {
            fields.append("response=\"\(hash("\(ha1):\(nonce):\(ha2)"))\"")
        }
        if let opaque = challenge.parameters["opaque"] { fields.append("opaque=\"\(opaque)\"") }
        return "Digest " + fields.joined(separator: ", ")
    }
}
