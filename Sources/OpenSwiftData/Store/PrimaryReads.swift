import Foundation

/// Whether the reads of the running code are pinned to the primary server
/// (``ModelContainer/readingFromPrimary(_:)``): an engine with read replicas sends them to its
/// primary instead. A task-local value, so it holds for this code alone — its thread, or its
/// task and the tasks it makes — and nothing process-wide changes.
package enum PrimaryReads {
    @TaskLocal package static var isPinned = false
}
