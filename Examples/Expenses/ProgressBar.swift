import Foundation

/// A progress bar on standard error when it is a terminal; nothing otherwise (a pipe or a log).
struct ProgressBar {
    let title: String
    let isTerminal = isatty(STDERR_FILENO) == 1

    func show(_ done: Int, of total: Int?) {
        guard isTerminal else { return }
        let line: String
        if let total, total > 0 {
            let width = 30
            let filled = min(width, done * width / total)
            line = "\(title) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))] \(done)/\(total)"
        } else {
            line = "\(title) \(done)"
        }
        FileHandle.standardError.write(Data("\r\(line)".utf8))
    }

    func finish() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
