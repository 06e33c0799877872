import CustomDump

/// How failure messages name values: CustomDump's dump, on one line.
func describe(_ value: Any) -> String {
    var line = ""
    for raw in String(customDumping: value).split(separator: "\n") {
        let part = raw.drop { $0 == " " }
        let joinsTight = line.isEmpty || line.hasSuffix("(") || line.hasSuffix("[")
            || part.hasPrefix(")") || part.hasPrefix("]")
        line += (joinsTight ? "" : " ") + part
    }
    return line
}

/// A bulleted list of actions.
func list<Action>(_ actions: [Action]) -> String {
    actions.map { "  • " + describe($0) }.joined(separator: "\n")
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
