/// Terminal column widths of text, computed without the C library's `wcwidth`
/// (which is locale-dependent and out of date for emoji on many systems).
///
/// A `Character` (grapheme cluster) occupies:
/// - 0 columns if it consists only of control, zero-width or combining scalars;
/// - 2 columns if its base scalar is East Asian Wide/Fullwidth, an emoji with default
///   emoji presentation, or it carries U+FE0F (emoji presentation selector) or is a
///   flag / ZWJ sequence;
/// - 1 column otherwise. Combining marks after the base add nothing.
enum DisplayWidth {
    /// The number of terminal columns `string` occupies.
    static func of(_ string: some StringProtocol) -> Int {
        var total = 0
        for character in string { total += of(character) }
        return total
    }

    /// The number of terminal columns `character` occupies (0, 1 or 2).
    static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if character.isASCII {
            return (first.value < 0x20 || first.value == 0x7F) ? 0 : 1
        }
        var base: Unicode.Scalar?
        var emojiPresentation = false
        var scalarCount = 0
        for scalar in scalars {
            scalarCount += 1
            if scalar.value == 0xFE0F { emojiPresentation = true; continue }
            if base == nil, !isZeroWidth(scalar) { base = scalar }
        }
        guard let base else { return 0 }
        if isWide(base) { return 2 }
        if emojiPresentation, base.properties.isEmoji { return 2 }
        // Regional-indicator pairs (flags) and ZWJ emoji sequences render as one wide glyph.
        if scalarCount > 1, base.properties.isEmoji, base.value > 0xFF,
           scalars.contains(where: { $0.value == 0x200D || (0x1F1E6...0x1F1FF).contains($0.value) }) {
            return 2
        }
        return 1
    }

    /// Zero-width scalars: controls, combining marks, format characters, variation selectors.
    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return true }
        if v == 0x200B || v == 0x200C || v == 0x200D || v == 0x2060 || v == 0xFEFF { return true }
        if (0xFE00...0xFE0F).contains(v) || (0xE0100...0xE01EF).contains(v) { return true }
        if (0x1160...0x11FF).contains(v) { return true }   // Hangul medial vowels / final consonants
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return false
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges, plus emoji with default emoji presentation.
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x1100 { return false }
        for range in wideRanges where range.contains(v) { return true }
        return scalar.properties.isEmojiPresentation
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,   // Hangul Jamo initial consonants
        0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693,
        0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE,
        0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA,
        0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728, 0x274C...0x274C,
        0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797, 0x27B0...0x27B0,
        0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x303E,   // CJK radicals, Kangxi, CJK symbols and punctuation
        0x3041...0x33FF,   // Hiragana, Katakana, Bopomofo, Hangul compatibility, CJK compatibility
        0x3400...0x4DBF,   // CJK Extension A
        0x4E00...0x9FFF,   // CJK Unified Ideographs
        0xA000...0xA4CF,   // Yi
        0xA960...0xA97F,   // Hangul Jamo Extended-A
        0xAC00...0xD7A3,   // Hangul syllables
        0xF900...0xFAFF,   // CJK compatibility ideographs
        0xFE10...0xFE19, 0xFE30...0xFE6F,   // vertical forms, CJK compatibility forms, small forms
        0xFF00...0xFF60, 0xFFE0...0xFFE6,   // fullwidth forms
        0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,   // Tangut, Kana supplement
        0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A,
        0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251,
        0x1F260...0x1F265,
        0x1F300...0x1F64F,   // misc symbols and pictographs, emoticons
        0x1F680...0x1F6FF,   // transport and map
        0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,   // CJK Extensions B and beyond
    ]

    /// The longest prefix of `string` that fits in `width` columns. When something was cut
    /// and `ellipsis` is set, the result ends with "…" and still fits.
    static func truncate(_ string: String, toWidth width: Int, ellipsis: Bool = true) -> String {
        guard width > 0 else { return "" }
        if of(string) <= width { return string }
        let budget = ellipsis ? width - 1 : width
        var result = ""
        var used = 0
        for character in string {
            let w = of(character)
            if used + w > budget { break }
            result.append(character)
            used += w
        }
        return ellipsis ? result + "…" : result
    }

    /// `string` truncated to `width` columns and padded with spaces to exactly `width`.
    static func fit(_ string: String, toWidth width: Int) -> String {
        let cut = truncate(string, toWidth: width)
        let missing = width - of(cut)
        return missing > 0 ? cut + String(repeating: " ", count: missing) : cut
    }
}
