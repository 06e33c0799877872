import Foundation

extension AppState: SessionFingerprinted {
    /// Every part of the state: the four entity stores (O(changed) per action) and the UI state.
    static var sessionFingerprint: StateFingerprint<AppState> {
        StateFingerprint()
            .entities(\.lists)
            .entities(\.tags)
            .entities(\.items)
            .entities(\.itemTags)
            .field(\.ui)
    }
}
