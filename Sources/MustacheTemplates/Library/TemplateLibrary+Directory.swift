import Foundation

/// What identifies a version of a template file.
struct Fingerprint: Equatable, Sendable {
    var size: Int
    var modified: Double
}

extension TemplateLibrary {
    /// Reads every template file below `directory`, and takes from `defaults` the templates
    /// that no file there replaces.
    static func read(
        directory: String, fileExtension: String, defaults: [String: String]
    ) throws(TemplateError) -> ([TemplateSet.Source], [String: Fingerprint]) {
        var sources: [TemplateSet.Source] = []
        for (name, path) in files(directory: directory, fileExtension: fileExtension) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw TemplateError(file: path, message: "cannot read the file (check its permissions)")
            }
            sources.append(TemplateSet.Source(name: name, file: path, bytes: [UInt8](data)))
        }
        let fromFiles = Set(sources.map(\.name))
        for (name, text) in defaults.sorted(by: { $0.key < $1.key }) where !fromFiles.contains(name) {
            sources.append(TemplateSet.Source(name: name, file: "(default) \(name)", bytes: Array(text.utf8)))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TemplateError(
                file: directory,
                message: "no templates directory here (set --templates to the folder of .\(fileExtension) files)")
        }
        return (sources, fingerprint(directory: directory, fileExtension: fileExtension))
    }

    /// Size and modification time of every template file, to notice changes.
    static func fingerprint(directory: String, fileExtension: String) -> [String: Fingerprint] {
        var result: [String: Fingerprint] = [:]
        for (_, path) in files(directory: directory, fileExtension: fileExtension) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            result[path] = Fingerprint(
                size: (attributes?[.size] as? Int) ?? -1,
                modified: (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        }
        return result
    }

    /// `(name, path)` of every template file, sorted by name.
    private static func files(directory: String, fileExtension: String) -> [(String, String)] {
        let root = URL(fileURLWithPath: directory).standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [(String, String)] = []
        let suffix = "." + fileExtension
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(suffix), !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") })
            else { continue }
            found.append((String(relative.dropLast(suffix.count)), root + "/" + relative))
        }
        return found.sorted { $0.0 < $1.0 }
    }
}
