import Foundation

/// The folded form of text that search indexes keep, and the rule for which needles may be
/// looked up in it.
///
/// An index may only narrow rows down: a row that `localizedStandardContains` (or `contains`)
/// would match must always be among the rows the index returns, or results would differ from a
/// scan. So the fold errs on the side of matching more: case folded, diacritics removed, then
/// every remaining combining mark dropped (Foundation ignores some that its own `folding` keeps,
/// such as the kana voicing marks), in one normal form. The exact function still checks each
/// row the index returns.
enum SearchFold {
    /// `text` as a search index keeps it.
    static func fold(_ text: String) -> String {
        var text = text
        if let ascii = text.withUTF8({ foldASCII($0) }) { return ascii }
        if let latin = latinFoldedBytes(text) { return String(decoding: latin, as: UTF8.self) }
        return foundationFold(text)
    }

    /// `text` folded (``fold(_:)``) as UTF-8 bytes, for ranking, which reads thousands of values
    /// a search: ASCII and Latin text go straight into one byte array, with no string between.
    static func foldedBytes(_ text: String) -> [UInt8] {
        latinFoldedBytes(text) ?? Array(foundationFold(text).utf8)
    }

    /// ASCII and Latin text (every scalar below ``latinEnd``) folded into UTF-8 bytes; `nil` for
    /// other text. There are no combining marks below U+0250, so each scalar is a character of
    /// its own and the text folds as its scalars do one by one.
    private static func latinFoldedBytes(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { bytes -> [UInt8]? in
            var folded: [UInt8] = []
            folded.reserveCapacity(bytes.count)
            // ASCII text lowers its letters; text that is not all ASCII takes every scalar from
            // the table, as ``fold(_:)`` does.
            var ascii = true, index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x80 {
                    if ascii {
                        folded.append(byte &- 0x41 < 26 ? byte | 0x20 : byte)
                    } else {
                        folded.append(contentsOf: latin[Int(byte)])
                    }
                    index += 1
                    continue
                }
                // A scalar below `latinEnd` takes two bytes, its lead byte 0xC2 to 0xC9.
                guard byte >= 0xC2, byte <= 0xC9, index + 1 < bytes.count else { return nil }
                let value = Int(byte & 0x1F) << 6 | Int(bytes[index + 1] & 0x3F)
                guard value < Int(latinEnd) else { return nil }
                if ascii {
                    ascii = false
                    folded.removeAll(keepingCapacity: true)
                    for earlier in bytes[..<index] { folded.append(contentsOf: latin[Int(earlier)]) }
                }
                folded.append(contentsOf: latin[value])
                index += 2
            }
            return folded
        }
    }

    /// The end of the Latin scalars (Basic Latin through Latin Extended-B) folded from a table.
    private static let latinEnd: UInt32 = 0x250
    /// Each scalar below ``latinEnd`` folded: what most non-ASCII text in Latin scripts is made of,
    /// without Foundation's cost per value written.
    private static let latin: [[UInt8]] = (0..<latinEnd).map { value in
        Array((Unicode.Scalar(value).map { foundationFold(String($0)) } ?? "").utf8)
    }

    /// The fold through Foundation, for any text.
    static func foundationFold(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: folded.append(scalar)
            }
        }
        return String(folded).precomposedStringWithCanonicalMapping
    }

    /// ASCII text folded (upper case letters lowered, which is all the fold does to ASCII),
    /// without Foundation; `nil` for any other text. Most text is ASCII, and this runs for every
    /// searchable value written.
    static func foldASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var ascii = true
        let folded = String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (index, byte) in bytes.enumerated() {
                guard byte < 0x80 else {
                    ascii = false
                    return 0
                }
                buffer[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            return bytes.count
        }
        return ascii ? folded : nil
    }

    /// The fewest characters a folded needle needs for an index to look it up (a trigram
    /// index knows sequences of three).
    static let shortestNeedle = 3

    /// The folded form of `needle` to look up in an index, or `nil` when the store must scan:
    /// the needle is too short, or holds a character whose matches the fold cannot promise.
    ///
    /// Foundation's matching has cases no fold reproduces (`ß` found in `ſé`, Greek `ι` found
    /// in the combining iota subscript, expansions such as `ﬅ`). A needle is looked up only when
    /// every scalar is of a script checked against Foundation (millions of random pairs while
    /// this was written; `SearchTests` repeats a share of them) — Latin, Greek except iota,
    /// Cyrillic, kana without voicing marks, CJK ideographs — and decomposes to a base with
    /// Latin combining marks at most.
    static func indexableNeedle(_ needle: String) -> String? {
        guard needle.unicodeScalars.allSatisfy(isIndexable) else { return nil }
        let folded = fold(needle)
        return folded.unicodeScalars.count >= shortestNeedle ? folded : nil
    }

    private static func isIndexable(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        let inScript = (0x20...0x7E).contains(value) || (0xC0...0x24F).contains(value) || (0x370...0x3FF).contains(value)
            || (0x400...0x45F).contains(value) || (0x3041...0x3096).contains(value) || (0x30A1...0x30FA).contains(value)
            || (0x4E00...0x9FFF).contains(value)
        guard inScript, !excluded.contains(value) else { return false }
        let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        return decomposed.dropFirst().allSatisfy { (0x300...0x36F).contains($0.value) }
    }

    /// `×`, `÷`, `ß`, `ŉ`, `ſ`, `ǰ`, Greek iota in all its forms, and `ΐ`/`ΰ`, whose case folds
    /// expand or which Foundation matches against combining marks.
    private static let excluded: Set<UInt32> = [0xD7, 0xF7, 0xDF, 0x149, 0x17F, 0x1F0, 0x390, 0x3B0, 0x3B9, 0x399, 0x3AF, 0x38A, 0x3CA, 0x3AA, 0x345]
}
