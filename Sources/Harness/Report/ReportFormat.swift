import Foundation
import enum SAMLCore.PrivateFile

/// The report formats and the files they are written to.
public enum ReportFormat: String, CaseIterable, Sendable {
    case junit, json, sarif, md, html

    /// The file a format is written to in the report directory.
    public var fileName: String {
        switch self {
        case .junit: "junit.xml"
        case .json: "report.json"
        case .sarif: "report.sarif"
        case .md: "summary.md"
        case .html: "report.html"
        }
    }

    public struct UnknownFormat: Error, CustomStringConvertible {
        public let name: String
        public var description: String {
            "unknown report format `\(name)`; the formats are \(ReportFormat.allCases.map(\.rawValue).joined(separator: ","))"
        }
    }

    /// `junit,json,sarif` → the formats; `all` or empty → every format.
    public static func parse(_ list: String) throws -> [ReportFormat] {
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        if names.isEmpty || names == ["all"] { return allCases }
        var formats: [ReportFormat] = []
        for name in names {
            let format: ReportFormat? = switch name {
            case "markdown": .md
            case "xml": .junit
            default: ReportFormat(rawValue: name)
            }
            guard let format else { throw UnknownFormat(name: name) }
            if !formats.contains(format) { formats.append(format) }
        }
        return formats
    }

    /// The document in this format.
    public func render(_ report: ConformanceReport) throws -> Data {
        switch self {
        case .json: try report.jsonData()
        case .junit: Data(JUnitWriter.render(report).utf8)
        case .sarif: try SARIFWriter.render(report)
        case .md: Data(MarkdownWriter.render(report, htmlFile: ReportFormat.html.fileName).utf8)
        case .html: Data(HTMLReportWriter.render(report).utf8)
        }
    }
}

/// Writes a report's formats into a directory.
public enum ReportWriter {
    /// Writes `formats` of `report` into `directory` (created if needed); returns the files
    /// written. Unless `showSecrets`, everything is masked first (``SecretMasker``). With
    /// `showSecrets` the directory is made (or changed to) mode 0700 and each file is created
    /// 0600 (``PrivateFile``): unmasked passwords and tokens are this user's alone. Masked
    /// reports keep the usual modes, to be shared.
    @discardableResult
    public static func write(_ report: ConformanceReport, formats: [ReportFormat], to directory: URL,
                             showSecrets: Bool = false) throws -> [URL] {
        let report = showSecrets ? report : masked(report)
        if showSecrets {
            try PrivateFile.makeDirectory(directory.path)
        } else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        var written: [URL] = []
        for format in formats {
            let url = directory.appendingPathComponent(format.fileName)
            if showSecrets {
                try PrivateFile.write(format.render(report), to: url.path)
            } else {
                try format.render(report).write(to: url, options: .atomic)
            }
            written.append(url)
        }
        return written
    }

    /// The report with every run's results masked (idempotent).
    public static func masked(_ report: ConformanceReport) -> ConformanceReport {
        var copy = report
        copy.runs = report.runs.map { run in
            var r = run
            r.results = run.results.map(SecretMasker.mask)
            return r
        }
        copy.secretsMasked = true
        return copy
    }
}
