import BenchCSQLite
import Foundation
import Logging
import OpenSwiftData
import OpenSwiftDataPostgres
import PostgresNIO

// Part of `bench --search` (SearchBenchmark.swift): ranked search (`ModelContext.search`) on the
// same notes, its latency over a set of queries as a search field sends them, and the same
// filter and search on PostgreSQL when `--postgres` is given.

/// What people type into a search field, made from the corpus: a word, a prefix, two words, a
/// phrase from a note, a word with another excluded.
func searchQueries(_ corpus: SearchCorpus) -> [String] {
    let phrase = corpus.notes[12_345].split(separator: " ").prefix(2).joined(separator: " ")
    return [corpus.words[17], String(corpus.words[400].prefix(4)) + "*", "\(corpus.words[1_203]) \(corpus.words[1_777].prefix(5))",
            "\"\(phrase)\"", "\(corpus.words[999]) -\(corpus.words[17].prefix(4))"]
}

/// Runs each query `repeats` times on a fresh context of `container`: one table row per query
/// (results, median) and every latency, for the percentiles.
func measureRankedSearch<Note: PersistentModel>(_ type: Note.Type, in container: ModelContainer, queries: [String], repeats: Int) throws -> (lines: [String], latencies: [Double]) {
    var lines: [String] = [], latencies: [Double] = []
    for query in queries {
        var times: [Double] = [], found = 0, best = ""
        for _ in 0..<repeats {
            let context = ModelContext(container)
            var results: [SearchResult<Note>] = []
            times.append(try searchSeconds { results = try context.search(query, in: type, limit: 20) })
            found = results.count
            best = results.first?.snippets.first?.parts.map { $0.isMatch ? "**\($0.text)**" : $0.text }.joined() ?? ""
        }
        latencies += times
        let median = times.sorted()[times.count / 2]
        lines.append(String(format: "| `%@` | %d | %.2f ms | %@ |", query, found, median * 1000, best))
    }
    return (lines, latencies)
}

/// The `fraction` percentile of `values`.
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

/// The hand-written floor of ranked search: FTS5's own BM25 order over the trigram index of the
/// folded notes, top 20, through the C API (no exact check, no snippets, no models).
func measureFTS5Ranking(_ c: CLibrary, queries: [String], repeats: Int) throws -> [Double] {
    let statement = try c.prepare("SELECT rowid FROM note_fts WHERE note_fts MATCH ? ORDER BY bm25(note_fts) LIMIT 20")
    defer { sqlite3_finalize(statement) }
    var latencies: [Double] = []
    for query in queries {
        // The query's words as FTS5 phrases; an excluded word as NOT.
        var match = "", excluded: [String] = []
        for term in query.replacingOccurrences(of: "\"", with: "").split(separator: " ") {
            let word = term.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).replacingOccurrences(of: "*", with: "")
            if word.hasPrefix("-") { excluded.append(String(word.dropFirst())) } else { match += (match.isEmpty ? "" : " ") + "\"\(word)\"" }
        }
        for word in excluded { match += " NOT \"\(word)\"" }
        for _ in 0..<repeats {
            latencies.append(searchSeconds {
                sqlite3_bind_text(statement, 1, match, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                while sqlite3_step(statement) == SQLITE_ROW {}
                sqlite3_reset(statement)
            })
        }
    }
    return latencies
}

/// The filter and ranked search on PostgreSQL: the notes inserted with and without
/// `.spotlight`, the filter scanned and through the trigram index, ranked search's latency, and
/// the index's size. Lines for Results/search.md.
func postgresSearchSection(url: URL, corpus: SearchCorpus, needles: [String], queries: [String], runs: Int, repeats: Int) async throws -> [String] {
    let namespace = "search_\(UInt32.random(in: 0...UInt32.max))"
    func filled<Note: PersistentModel>(_ type: Note.Type, _ name: String, _ make: (String, Double) -> Note) throws -> (ModelContainer, Double) {
        try filledWithNotes(type, PostgresConfiguration(name, url: url, postgresSchema: "\(namespace)_\(name)"), notes: corpus.notes, make)
    }
    let (plain, insertPlain) = try filled(SearchNote.self, "plain") { SearchNote(note: $0, amount: $1) }
    searchLog("PostgreSQL: \(corpus.notes.count) notes inserted in \(insertPlain) s")
    let (indexed, insertIndexed) = try filled(IndexedSearchNote.self, "indexed") { IndexedSearchNote(note: $0, amount: $1) }
    searchLog("PostgreSQL, searchable: \(corpus.notes.count) notes inserted in \(insertIndexed) s")
    defer {
        try? plain.erase()
        try? indexed.erase()
    }
    var lines = [
        "## PostgreSQL", "",
        "The same \(corpus.notes.count) notes in PostgreSQL (\(url.host ?? "local") server on this machine), 10,000 a save. `localizedStandardContains` folds in one SQL expression there, and `.spotlight` gives each column a `pg_trgm` GIN index of it.", "",
        "| Needle | Rows (scan) | Scan, `fetchCount` | Rows (index) | Through the index, `fetchCount` | Scan ÷ index |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for needle in needles {
        var found = 0, indexedFound = 0
        let scan = try searchMedian(runs: runs) { found = try ModelContext(plain).fetchCount(FetchDescriptor<SearchNote>(predicate: #Predicate { $0.note.localizedStandardContains(needle) })) }
        let index = try searchMedian(runs: runs) { indexedFound = try ModelContext(indexed).fetchCount(FetchDescriptor<IndexedSearchNote>(predicate: #Predicate { $0.note.localizedStandardContains(needle) })) }
        searchLog("PostgreSQL \(needle): scan \(scan) s (\(found)), index \(index) s (\(indexedFound))")
        lines.append(String(format: "| `%@` | %d | %.1f ms | %d | %.2f ms | %.0f× |", needle, found, scan * 1000, indexedFound, index * 1000, scan / max(index, 1e-9)))
    }
    let ranked = try measureRankedSearch(IndexedSearchNote.self, in: indexed, queries: queries, repeats: repeats)
    lines += ["", "Ranked search (`context.search(query, in: IndexedSearchNote.self, limit: 20)`), median of \(repeats) searches each:", "",
              "| Query | Results | Median | Best match's passage |", "| --- | ---: | ---: | --- |"] + ranked.lines
    lines += ["", String(format: "Over all %d searches: p50 %.1f ms, p99 %.1f ms.", ranked.latencies.count, percentile(ranked.latencies, 0.5) * 1000, percentile(ranked.latencies, 0.99) * 1000)]
    let (tableBytes, indexBytes) = try await postgresSizes(url: url, namespace: "\(namespace)_indexed", table: "IndexedSearchNote")
    let updates = min(corpus.notes.count, 100_000)
    let updatePlain = try notesUpdatedSeconds(SearchNote.self, in: plain, count: updates) { $0.note = "Edited " + $0.note }
    let updateIndexed = try notesUpdatedSeconds(IndexedSearchNote.self, in: indexed, count: updates) { $0.note = "Edited " + $0.note }
    searchLog("PostgreSQL: updating \(updates) notes: \(updatePlain) s, searchable \(updateIndexed) s")
    lines += ["", "| | Without `.spotlight` | With it | Ratio |", "| --- | ---: | ---: | ---: |",
              String(format: "| Inserting %d notes | %.2f s | %.2f s | %.2f× |", corpus.notes.count, insertPlain, insertIndexed, insertIndexed / max(insertPlain, 1e-9)),
              String(format: "| Changing the note of %d of them and saving (fetches not timed) | %.2f s | %.2f s | %.2f× |", updates, updatePlain, updateIndexed, updateIndexed / max(updatePlain, 1e-9)),
              String(format: "| Size (the notes' table, the `pg_trgm` index) | %.1f MB | %.1f MB | %.2f× |", Double(tableBytes) / 1e6, Double(indexBytes) / 1e6,
                     Double(indexBytes) / Double(max(tableBytes, 1))), ""]
    return lines
}

/// The bytes of `table` in `namespace` (with its TOAST, without indexes), and of the namespace's
/// search indexes (`Z_SEARCH…`), as PostgreSQL counts them.
func postgresSizes(url: URL, namespace: String, table: String) async throws -> (table: Int64, index: Int64) {
    let connection = try await connectPostgres(url.absoluteString, namespace: nil)
    defer { Task { try? await connection.close() } }
    let query = PostgresQuery(unsafeSQL: """
        SELECT coalesce(sum(pg_table_size(c.oid)) FILTER (WHERE c.relname = '\(table)'), 0)::int8,
               coalesce(sum(pg_relation_size(c.oid)) FILTER (WHERE c.relkind = 'i' AND c.relname LIKE 'Z_SEARCH%'), 0)::int8
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(namespace)'
        """)
    for try await (tableBytes, indexBytes) in try await connection.query(query, logger: Logger(label: "bench.search")).decode((Int64, Int64).self) {
        return (tableBytes, indexBytes)
    }
    return (0, 0)
}
