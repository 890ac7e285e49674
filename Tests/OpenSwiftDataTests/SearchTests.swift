import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Searchable attributes (`@Attribute(.spotlight)`): substring predicates on them give exactly
/// what `Predicate.evaluate` gives, on every store — through a search index where the store
/// keeps one — and the index follows every kind of write.
@Suite struct SearchTests {
    static func store(_ kind: StoreKind, count: Int = 200, seed: UInt64 = 55) throws -> TestStore {
        let store = try TestStore(kind, [SNote.self])
        let context = store.context()
        let texts = SearchCorpus.texts(count: count * 2, seed: seed)
        let folders = SearchCorpus.texts(count: 12, seed: seed + 1).map(SFolder.init)
        for index in 0..<count {
            let note = SNote(text: texts[2 * index], title: index % 4 == 0 ? nil : texts[2 * index + 1], body: texts[2 * index + 1], rank: index % 7)
            context.insert(note)
            if index % 3 != 0 { note.folder = folders[index % folders.count] }
        }
        try context.save()
        return store
    }

    /// Fetches with `predicate` in a fresh context and compares with evaluating it over `all`
    /// (every note, read once per store).
    static func check(_ store: TestStore, _ predicate: Predicate<SNote>, over all: [SNote]? = nil, _ note: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let all = try all ?? store.context().fetch(FetchDescriptor<SNote>())
        let expected = Set(all.filter { (try? predicate.evaluate($0)) ?? false }.map(\.persistentModelID))
        let fetched = try store.context().fetch(FetchDescriptor<SNote>(predicate: predicate)).map(\.persistentModelID)
        let missing = expected.subtracting(fetched).count, extra = Set(fetched).subtracting(expected).count
        #expect(missing == 0 && extra == 0, "SQL and evaluate disagree \(note): \(missing) rows missing, \(extra) too many", sourceLocation: sourceLocation)
        #expect(fetched.count == expected.count, "duplicate rows \(note)", sourceLocation: sourceLocation)
    }

    /// Every needle of the corpus, in every position an index may or may not narrow.
    ///
    /// PostgreSQL compares text in one normal form (NFC), and Foundation does not always: a kana
    /// and its voicing mark written apart hold `ふ`, written as one (`ぷ`) they do not. A needle
    /// whose matches in this corpus depend on the form is left out there (`Search.md` says so),
    /// and so is `が`, which Foundation finds in `か` followed by `ᾳ` (a Greek letter with the
    /// iota subscript).
    static func checkEveryNeedle(_ store: TestStore, kind: StoreKind) throws {
        let all = try store.context().fetch(FetchDescriptor<SNote>())
        let texts = all.flatMap { [$0.text, $0.body] + ($0.title.map { [$0] } ?? []) + ($0.folder.map { [$0.name] } ?? []) }
        for needle in SearchCorpus.needles {
            if kind.isPostgres, needle == "\u{304C}" || texts.contains(where: { $0.localizedStandardContains(needle) != $0.precomposedStringWithCanonicalMapping.localizedStandardContains(needle.precomposedStringWithCanonicalMapping) }) {
                continue
            }
            let name = needle.debugDescription
            try check(store, #Predicate<SNote> { $0.text.localizedStandardContains(needle) }, over: all, "localizedStandardContains(\(name))")
            try check(store, #Predicate<SNote> { $0.text.contains(needle) }, over: all, "contains(\(name))")
            try check(store, #Predicate<SNote> { $0.title?.localizedStandardContains(needle) ?? false }, over: all, name)
            try check(store, #Predicate<SNote> { $0.title?.localizedStandardContains(needle) == true }, over: all, name)
            try check(store, #Predicate<SNote> { !$0.text.localizedStandardContains(needle) }, over: all, name)
            try check(store, #Predicate<SNote> { !($0.title?.localizedStandardContains(needle) ?? true) }, over: all, name)
            try check(store, #Predicate<SNote> { $0.text.localizedStandardContains(needle) || $0.rank == 3 }, over: all, name)
            try check(store, #Predicate<SNote> { $0.text.localizedStandardContains(needle) || ($0.title?.localizedStandardContains(needle) ?? false) }, over: all, name)
            try check(store, #Predicate<SNote> { $0.rank != 2 && ($0.title?.contains(needle) == true || $0.text.contains(needle)) }, over: all, name)
            try check(store, #Predicate<SNote> { $0.rank < 5 && $0.text.localizedStandardContains(needle) && $0.body.localizedStandardContains(needle) }, over: all, name)
            try check(store, #Predicate<SNote> { $0.text.localizedStandardContains(needle) && ($0.title?.contains(needle) ?? false) }, over: all, name)
            try check(store, #Predicate<SNote> { $0.text.localizedStandardContains(needle) || ($0.folder?.name.localizedStandardContains(needle) ?? false) }, over: all, name)
            try check(store, #Predicate<SNote> { $0.rank > 1 && ($0.folder?.name.contains(needle) == true || $0.title?.contains(needle) == true) }, over: all, name)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func substringPredicatesOnSearchableAttributesMatchEvaluate(_ kind: StoreKind) throws {
        try Self.checkEveryNeedle(try Self.store(kind), kind: kind)
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func sortsLimitsAndCountsKeepTheirMeaning(_ kind: StoreKind) throws {
        let store = try Self.store(kind)
        let context = store.context()
        let needle = "CAFE"
        let predicate = #Predicate<SNote> { $0.text.localizedStandardContains(needle) }
        let all = try context.fetch(FetchDescriptor<SNote>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.text)]))
        let expected = all.filter { $0.text.localizedStandardContains(needle) }
        #expect(expected.count > 3)
        var descriptor = FetchDescriptor<SNote>(predicate: predicate, sortBy: [SortDescriptor(\.rank), SortDescriptor(\.text)])
        #expect(try context.fetchCount(descriptor) == expected.count)
        descriptor.fetchLimit = 3
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.persistentModelID) == expected.dropFirst().prefix(3).map(\.persistentModelID))
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func everyKindOfWriteIsFoundAtOnce(_ kind: StoreKind) throws {
        let store = try Self.store(kind, count: 60)
        let context = store.context()
        let needle = "zebra"
        let predicate = #Predicate<SNote> { $0.text.localizedStandardContains(needle) || ($0.title?.localizedStandardContains(needle) ?? false) }
        func found() throws -> Set<String> { Set(try store.context().fetch(FetchDescriptor(predicate: predicate)).map(\.body)) }
        #expect(try found().isEmpty)

        // Inserts, then an update of each searchable attribute, then an update away from it.
        let first = SNote(text: "a ZÈBRA here", body: "first"), second = SNote(text: "none", body: "second"), third = SNote(text: "none", body: "third")
        [first, second, third].forEach(context.insert)
        try context.save()
        #expect(try found() == ["first"])
        second.title = "zébra crossing"
        third.text = "Zebras"
        first.text = "no longer"
        try context.save()
        #expect(try found() == ["second", "third"])

        // Undone by a rollback before saving: nothing changes.
        second.title = nil
        context.rollback()
        #expect(try found() == ["second", "third"])

        // A batch update, a batch delete, a delete.
        let changed = try context.update(model: SNote.self, where: #Predicate { $0.rank == 1 }, set: \.text, to: "ZEBRA by batch")
        #expect(changed > 0)
        #expect(try found().count == 2 + changed)
        try context.delete(model: SNote.self, where: #Predicate { $0.text == "ZEBRA by batch" })
        try context.save()
        #expect(try found() == ["second", "third"])
        context.delete(third)
        try context.save()
        #expect(try found() == ["second"])

        // All data, then new rows.
        store.container.deleteAllData()
        #expect(try store.context().fetchCount(FetchDescriptor<SNote>()) == 0)
        let fresh = store.context()
        fresh.insert(SNote(text: "zebra again", body: "again"))
        try fresh.save()
        #expect(try found() == ["again"])
    }

    /// A new store at `place` holding `texts`, written through `make`'s model and closed again.
    static func store<Before: PersistentModel>(at place: MigrationPlace, holding texts: [String], _ make: (String) -> Before) throws {
        let container = try ModelContainer(for: Schema([Before.self]), configurations: [try place.configuration()])
        let context = ModelContext(container)
        texts.forEach { context.insert(make($0)) }
        try context.save()
    }

    /// A new store of `kind` holding `texts` written through `make`'s model, opened again with
    /// `types`: the place, the container and the progress the opening reported.
    static func reopened<Before: PersistentModel>(_ kind: MigrationPlaceKind, holding texts: [String], _ make: (String) -> Before,
                                                  as types: [any PersistentModel.Type]) throws -> (place: MigrationPlace, container: ModelContainer, reports: [MigrationProgress]) {
        let place = MigrationPlace(kind)
        try store(at: place, holding: texts, make)
        let (container, reports) = try openWatched(types, at: place)
        return (place, container, reports)
    }

    /// The store at `place` opened with `types`, and the progress the opening reported.
    static func openWatched(_ types: [any PersistentModel.Type], at place: MigrationPlace) throws -> (container: ModelContainer, reports: [MigrationProgress]) {
        let reports = Locked<[MigrationProgress]>([])
        let container = try MigrationProgress.observe({ progress in reports.withLock { $0.append(progress) } }, during: {
            try ModelContainer(for: Schema(types), configurations: [try place.configuration()])
        })
        return (container, reports.withLock { $0 })
    }

    /// An existing store whose attribute becomes searchable gets its index built as it opens,
    /// with progress reported as a migration's; its predicates then match as before.
    @Test(arguments: MigrationPlaceKind.allCases)
    func anExistingStoreGetsItsIndexBuiltWithProgress(_ kind: MigrationPlaceKind) throws {
        let texts = SearchCorpus.texts(count: 500, seed: 7)
        let (place, container, seen) = try Self.reopened(kind, holding: texts, { SearchBefore.SMemo(text: $0) }, as: [SearchAfter.SMemo.self])
        #expect(seen.contains { $0.entityName == "SMemo" && $0.completedRows == texts.count && $0.totalRows == texts.count }, "\(seen)")
        #expect(seen.last?.entityName == nil)
        #expect(seen.first?.stageDescription == "search index of SMemo")
        for needle in ["strasse", "cafe", "東京", "моск"] {
            let found = try ModelContext(container).fetch(FetchDescriptor<SearchAfter.SMemo>(predicate: #Predicate { $0.text.localizedStandardContains(needle) }))
            #expect(found.count == texts.filter { $0.localizedStandardContains(needle) }.count && !found.isEmpty, "\(needle)")
        }
        // Opening it again builds nothing.
        #expect(try Self.openWatched([SearchAfter.SMemo.self], at: place).reports.isEmpty)
    }

    /// A migration that changes a searchable table keeps its searches exact: SQLite drops the
    /// index first and the same open builds it again from the migrated rows; PostgreSQL keeps
    /// its index through the change.
    @Test(arguments: MigrationPlaceKind.allCases)
    func aMigrationKeepsSearchesExact(_ kind: MigrationPlaceKind) throws {
        let texts = SearchCorpus.texts(count: 300, seed: 8)
        let (place, container, reports) = try Self.reopened(kind, holding: texts, { SearchAfter.SMemo(text: $0) }, as: [SearchMigrated.SMemo.self])
        // The place removes the store when it goes: not before the test is done with it.
        defer { withExtendedLifetime(place) {} }
        let stages = reports.filter { $0.entityName == nil }.map(\.stageDescription)
        if kind == .file { #expect(stages.count == 2 && stages.last == "search index of SMemo", "\(stages)") }
        let context = ModelContext(container)
        context.insert(SearchMigrated.SMemo(text: "Straße nach dem Umzug"))
        try context.save()
        for needle in ["strasse", "cafe", "umzug"] {
            let found = try ModelContext(container).fetchCount(FetchDescriptor<SearchMigrated.SMemo>(predicate: #Predicate { $0.text.localizedStandardContains(needle) }))
            #expect(found == (texts + ["Straße nach dem Umzug"]).filter { $0.localizedStandardContains(needle) }.count && found > 0, "\(needle)")
        }
    }

    /// Rows another program writes are found before any save of ours moves them into the
    /// index; an index another program damaged is rebuilt as the file opens.
    @Test func anotherProgramsWritesAndDamageAreCaughtUp() throws {
        let store = try Self.store(.file, count: 100)
        let url = try #require(store.url)
        let needle = "strasse"
        let predicate = #Predicate<SNote> { $0.text.localizedStandardContains(needle) }
        let before = try store.context().fetchCount(FetchDescriptor(predicate: predicate))
        // Another program inserts and updates rows: its SQLite runs the file's triggers, which
        // record the keys; the library's own function is not needed.
        _ = try CoreDataFileRows.read(url, #"INSERT INTO "SNote" ("Z_PK", "text", "title", "body", "rank") VALUES (100000, 'Große Straße', NULL, 'outside', 0)"#)
        _ = try CoreDataFileRows.read(url, #"UPDATE "SNote" SET "text" = 'STRASSE' WHERE "Z_PK" = (SELECT min("Z_PK") FROM "SNote" WHERE "text" NOT LIKE '%tra%')"#)
        #expect(try store.context().fetchCount(FetchDescriptor(predicate: predicate)) == before + 2)
        // It also empties the index behind the triggers' back.
        _ = try CoreDataFileRows.read(url, #"DELETE FROM "Z_SEARCH.SNote""#)
        let reopened = try store.reopen([SNote.self])
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor(predicate: predicate)) == before + 2)
        #expect(try ModelContext(reopened).fetch(FetchDescriptor(predicate: predicate)).contains { $0.body == "outside" })
    }

    /// A read-only container uses the index the file has; a file whose index is missing is
    /// read whole, with the same results.
    @Test func aReadOnlyStoreUsesTheIndexItHasAndScansWithoutOne() throws {
        let store = try Self.store(.file, count: 100)
        let url = try #require(store.url)
        let needle = "cafe"
        let predicate = #Predicate<SNote> { $0.text.localizedStandardContains(needle) }
        let expected = try store.context().fetchCount(FetchDescriptor(predicate: predicate))
        #expect(expected > 0)
        let readOnly = try ModelContainer(for: Schema([SNote.self]), configurations: [ModelConfiguration(url: url, allowsSave: false)])
        #expect(try ModelContext(readOnly).fetchCount(FetchDescriptor(predicate: predicate)) == expected)
        _ = try CoreDataFileRows.read(url, #"DROP TRIGGER "Z_SEARCH.SNote.insert""#)
        let incomplete = try ModelContainer(for: Schema([SNote.self]), configurations: [ModelConfiguration(url: url, allowsSave: false)])
        #expect(try ModelContext(incomplete).fetchCount(FetchDescriptor(predicate: predicate)) == expected)
    }

    /// The fold never loses a match: wherever Foundation finds a needle the index may look up
    /// (`localizedStandardContains`, or `contains`), the folded needle is a run of the folded
    /// text's scalars, which is what the trigram index finds. Random texts of the corpus and
    /// of characters Foundation folds in surprising ways; needles from the corpus and cut from
    /// the texts.
    @Test func theFoldKeepsEveryMatchFoundationFinds() {
        let odd = ["ß", "ſ", "ﬅ", "ﬃ", "ŉ", "ǰ", "ΐ", "ͅ", "ι", "ᾳ", "İ", "ı", "ǅ", "Ǳ", "ぷ", "ふ\u{309A}", "か\u{3099}", "ｆ", "Ａ", "Ⅻ", "①", "ª", "µ", "K", "Å", "e\u{301}", "\u{327}", "각", "ㄱ"]
        let pieces = SearchCorpus.pieces + odd
        var random = SplitMix64(state: 2026)
        func pick(_ list: [String]) -> String { list[Int(random.next() % UInt64(list.count))] }
        var looked = 0
        for _ in 0..<100_000 {
            let text = (0..<Int(random.next() % 5 + 1)).map { _ in pick(pieces) }.joined()
            let needle: String
            if random.next() % 2 == 0 {
                needle = pick(SearchCorpus.needles + odd)
            } else {
                let characters = Array(text)
                let start = Int(random.next() % UInt64(characters.count))
                needle = String(characters[start..<min(characters.count, start + Int(random.next() % 5 + 1))])
            }
            guard let folded = SearchFold.indexableNeedle(needle), text.localizedStandardContains(needle) || text.contains(needle) else { continue }
            looked += 1
            let haystack = Array(SearchFold.fold(text).unicodeScalars), wanted = Array(folded.unicodeScalars)
            let found = haystack.count >= wanted.count && (0...(haystack.count - wanted.count)).contains { Array(haystack[$0..<($0 + wanted.count)]) == wanted }
            #expect(found, "\(needle.debugDescription) is in \(text.debugDescription) for Foundation, not in the folded text")
        }
        #expect(looked > 5_000)
        // ASCII takes a path of its own, which must fold as Foundation does.
        let ascii = String(String.UnicodeScalarView((0..<128).map { Unicode.Scalar(UInt8($0)) }))
        #expect(SearchFold.fold(ascii) == ascii.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
        // So does Latin text, folded from a table one scalar at a time.
        for _ in 0..<2_000 {
            let latin = String(String.UnicodeScalarView((0..<Int(random.next() % 12 + 1)).compactMap { _ in Unicode.Scalar(UInt32(random.next() % 0x250)) }))
            #expect(SearchFold.fold(latin) == SearchFold.foundationFold(latin), "\(latin.debugDescription)")
        }
    }

    /// SQLite's `localizedStandardContains` answers ASCII text without Foundation: the same
    /// answer as Foundation for every pair of ASCII characters around a needle, and for random
    /// ASCII texts and needles; text or needles it does not answer (non-ASCII, NUL in the
    /// needle, empty) go to Foundation.
    @Test func asciiTextIsAnsweredAsFoundationAnswersIt() {
        func check(_ text: [UInt8], _ needle: [UInt8]) {
            let answer = text.withUnsafeBufferPointer { t in needle.withUnsafeBufferPointer { SQLiteFunctions.asciiContains(t, $0) } }
            let foundation = String(decoding: text, as: UTF8.self).localizedStandardContains(String(decoding: needle, as: UTF8.self))
            if let answer {
                #expect(answer == foundation, "\(text) \(needle)")
            } else {
                #expect(needle.isEmpty || needle.contains(0) || (text + needle).contains { $0 >= 0x80 }, "\(text) \(needle)")
            }
        }
        let x = UInt8(ascii: "x"), y = UInt8(ascii: "y")
        for a in UInt8(0)..<128 {
            for b in UInt8(0)..<128 {
                for needle in [[x, y], [a], [a, b], [x, b], [a, y], [UInt8(ascii: "X"), a, b, UInt8(ascii: "Y")]] {
                    check([x, a, b, y], needle)
                }
            }
        }
        var random = SplitMix64(state: 127)
        for _ in 0..<50_000 {
            let text = (0..<Int(random.next() % 12)).map { _ in UInt8(random.next() % 128) }
            let needle = (0..<Int(random.next() % 4)).map { _ in UInt8(random.next() % 128) }
            check(text, needle)
        }
        check(Array("café crème".utf8), Array("CAFE".utf8))
    }

    /// Ranking folds to bytes by a path of its own (ASCII, Latin, anything else): the same bytes
    /// as the fold's text, for text of each kind and mixed.
    @Test func rankingFoldsToTheFoldsBytes() {
        let odd = ["ß", "ſ", "ﬃ", "ǅ", "ᾳ", "ぷ", "e\u{301}", "각", "Å", "İ", "ı", "😀", "\u{0}"]
        var random = SplitMix64(state: 55)
        for _ in 0..<5_000 {
            let text = String(String.UnicodeScalarView((0..<Int(random.next() % 12)).compactMap { _ -> Unicode.Scalar? in
                switch random.next() % 4 {
                case 0: return Unicode.Scalar(UInt8(random.next() % 128))
                case 1, 2: return Unicode.Scalar(UInt32(random.next() % 0x250))
                default: return odd[Int(random.next() % UInt64(odd.count))].unicodeScalars.first
                }
            }))
            #expect(SearchFold.foldedBytes(text) == Array(SearchFold.fold(text).utf8), "\(text.debugDescription)")
        }
        for text in SearchCorpus.pieces + odd + ["", "Café crème", "ASCII only", "naïve\u{301}"] {
            #expect(SearchFold.foldedBytes(text) == Array(SearchFold.fold(text).utf8), "\(text.debugDescription)")
        }
    }
}
