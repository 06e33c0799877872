import CustomDump

/// Failure diffs show an ``EntityStore`` as its entities, in order, without its change log.
extension EntityStore: CustomDumpReflectable {
    public var customDumpMirror: Mirror {
        Mirror(self, unlabeledChildren: values, displayStyle: .collection)
    }
}
