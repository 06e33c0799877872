import CustomDump

/// How failure messages show values: CustomDump's dump, on one line when it fits.
func describe(_ value: Any) -> String {
    String(customDumping: value)
}

/// A bulleted list of actions.
func list<Action>(_ actions: [Action]) -> String {
    actions.map { "  • " + describe($0).split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ") }
        .joined(separator: "\n")
}

/// "1 action", "2 actions".
func count(_ n: Int, _ noun: String) -> String {
    n == 1 ? "1 \(noun)" : "\(n) \(noun)s"
}

func indent(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
        .map { "  " + $0 }
        .joined(separator: "\n")
}
