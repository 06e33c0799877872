/// Control characters in stored text (an escape sequence in a title) must never reach the
/// terminal raw: every place that prints user text to a terminal (the UI, `todos list`)
/// shows each of them as "?".
enum ControlCharacters {
    /// `"a\u{1B}[31mb"` → `"a?[31mb"`. C0 controls, DEL and C1 controls become "?".
    static func neutralize(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { result.append(isControl(scalar) ? "?" : scalar) }
        return String(result)
    }

    /// Whether `scalar` is a C0 control, DEL or a C1 control.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
