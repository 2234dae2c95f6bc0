/// Strict parser for `multipart/form-data` bodies (RFC 7578): the text fields of a form, in
/// order. File parts keep their name and their content as text when it is UTF-8.
///
/// ```swift
/// let type = try request.contentType!           // multipart/form-data; boundary=----x
/// let fields = try MultipartForm.parse(request.body, boundary: type.parameter("boundary")!)
/// ```
public enum MultipartForm {
    /// The fields of `body`.
    ///
    /// - Throws: ``HTTPParseError`` (`invalidMediaType` for a missing boundary or malformed
    ///   parts, `invalidUTF8`, `tooManyFields`).
    public static func parse(_ body: [UInt8], boundary: String, maxFields: Int = URLEncodedForm.defaultMaxFields)
        throws(HTTPParseError) -> [FormField]
    {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else {
            throw HTTPParseError(.invalidMediaType, in: "multipart boundary")
        }
        let delimiter = Array("--\(boundary)".utf8)
        var fields: [FormField] = []
        guard var position = find(delimiter, in: body, from: 0) else {
            throw HTTPParseError(.invalidMediaType, in: "multipart body (no boundary)")
        }
        while true {
            position += delimiter.count
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-")
            {
                return fields
            }
            guard body.count >= position + 2, body[position] == 0x0D, body[position + 1] == 0x0A else {
                throw HTTPParseError(.invalidMediaType, in: "multipart body", at: position)
            }
            position += 2
            guard let headerEnd = find(Array("\r\n\r\n".utf8), in: body, from: position),
                let next = find(Array("\r\n".utf8) + delimiter, in: body, from: headerEnd + 4)
            else { throw HTTPParseError(.invalidMediaType, in: "multipart part", at: position) }
            let headers = String(decoding: body[position..<headerEnd], as: UTF8.self)
            guard let name = partName(headers) else {
                throw HTTPParseError(.invalidMediaType, in: "multipart part without a name", at: position)
            }
            guard fields.count < maxFields else {
                throw HTTPParseError(.tooManyFields, in: "form (limit \(maxFields))")
            }
            guard let value = String(validating: body[(headerEnd + 4)..<next], as: UTF8.self) else {
                throw HTTPParseError(.invalidUTF8, in: "form field \"\(name)\"")
            }
            fields.append(FormField(name: name, value: value))
            position = next + 2
        }
    }

    /// The `name` parameter of the part's `Content-Disposition: form-data`.
    private static func partName(_ headers: String) -> String? {
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "content-disposition" else {
                continue
            }
            for parameter in line[line.index(after: colon)...].split(separator: ";") {
                let trimmed = parameter.trimmingSpaces()
                guard trimmed.lowercased().hasPrefix("name=") else { continue }
                var value = trimmed.dropFirst(5)
                if value.first == "\"", value.last == "\"", value.count >= 2 { value = value.dropFirst().dropLast() }
                return String(value)
            }
        }
        return nil
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard pattern.count <= bytes.count else { return nil }
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0], bytes[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}
