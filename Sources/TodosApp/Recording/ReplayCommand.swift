import ArgumentParser
import Foundation

extension TodosCommand {
    /// `todos replay FILE`: replays a session recorded with `todos --record FILE` and prints
    /// it step by step.
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a session recorded with `todos --record FILE`: prints each step's action and what it changed.",
            discussion: """
                The app's reducer runs every recorded step again (effects are not run: the actions \
                they sent are in the recording). Exits with status 1 at the first step whose state \
                differs from the recording's, naming the parts that differ. With --interactive \
                (in a terminal), move through the steps with the arrow keys.
                """)
        @Argument(help: ArgumentHelp("The recording.", valueName: "file")) var file: String
        @Flag(help: "Print only the summary line.") var summary = false
        @Flag(help: "Print each step's whole state difference (in context), not only the fields it changed.")
        var fullState = false
        @Flag(help: "Browse the steps with the arrow keys (←/→ or k/j; g/G first/last; q quits). Needs a terminal.")
        var interactive = false

        func run() async throws {
            try await Self.replay(file: file, summary: summary, interactive: interactive, fullState: fullState)
        }

        @MainActor
        static func replay(file: String, summary: Bool, interactive: Bool, fullState: Bool = false) async throws {
            let url = URL(fileURLWithPath: DatabaseLocation.expand(file))
            let session: ReplayedSession
            do {
                session = try ReplayedSession(file: url)
            } catch let error as SessionRecordingError {
                throw TodosError(error.description)
            } catch {
                throw TodosError("cannot replay \(url.path): \(error)")
            }
            if interactive {
                try await ReplayViewer.run(session)
                return
            }
            var output = ""
            if !summary {
                for step in session.steps {
                    output += ReplayedSession.lines(for: step, fullState: fullState).joined(separator: "\n") + "\n"
                }
            }
            // A crash cut the last line: the complete steps replayed, and the cut line is named.
            for warning in session.recording.warnings { output += "warning: \(warning)\n" }
            TerminalIO.write(output + Self.summary(of: session, name: url.lastPathComponent) + "\n")
            if !session.matches { throw ExitCode(1) }
        }

        @MainActor
        static func summary(of session: ReplayedSession, name: String) -> String {
            let total = session.recording.steps.count
            if !session.initialDifferences.isEmpty {
                return "✗ \(name): the replay starts from another state (parts \(session.initialDifferences.joined(separator: ", ")) differ)"
            }
            if let divergence = session.divergence {
                return "✗ \(name): step \(divergence.step.index) of \(total) differs from the recording (parts \(divergence.differingParts.joined(separator: ", ")))"
            }
            return "✓ \(name): \(total) step\(total == 1 ? "" : "s") replayed; every state matches the recording"
        }
    }
}
