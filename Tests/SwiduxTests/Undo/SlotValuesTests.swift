import Testing
@testable import Swidux

/// `SlotValues` (an undo step's values by slot: the first inline, the others in an array)
/// against a dictionary, through random sets and removals.
@Suite("Undo step slot values")
struct SlotValuesTests {
    @Test func behavesLikeADictionaryOfSlots() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var values = SlotValues<Any>()
            var model: [Int: Int] = [:]
            var order: [Int] = []   // slots in the order they got a value (iteration order)
            for _ in 0..<30 {
                let slot = Int.random(in: 0..<5, using: &generator)
                if Bool.random(using: &generator) {
                    let value = Int.random(in: 0..<1000, using: &generator)
                    values[slot] = value
                    if model[slot] == nil { order.append(slot) }
                    model[slot] = value
                } else {
                    values[slot] = nil
                    model[slot] = nil
                    order.removeAll { $0 == slot }
                }
                #expect(values.isEmpty == model.isEmpty)
                // Nothing held implies no value; a value held is never "nothing held".
                if SlotValues.holdsNoValue(&values) { #expect(values.isEmpty) }
                if !values.isEmpty { #expect(!SlotValues.holdsNoValue(&values)) }
                for slot in 0..<5 { #expect(values[slot] as? Int == model[slot]) }
                #expect(values.map(\.index) == order)
                #expect(values.map { $0.value as! Int } == order.map { model[$0]! })
            }
            // Popping gives the values in the same order, and leaves nothing.
            var popped: [Int] = []
            while let (slot, value) = values.popFirst() {
                #expect(value as? Int == model[slot])
                popped.append(slot)
            }
            #expect(popped == order)
            #expect(values.isEmpty)
        }
    }

    /// A single value popped leaves nothing held (a step the history drops is then not
    /// destroyed); once a second value came, the array of others stays, empty.
    @Test func holdsNoValueOnceItsOnlyValueIsPopped() {
        var values = SlotValues<Any>()
        #expect(SlotValues.holdsNoValue(&values))
        values.append(0, "a")
        #expect(!SlotValues.holdsNoValue(&values))
        _ = values.popFirst()
        #expect(SlotValues.holdsNoValue(&values))
        values.append(0, "a")
        values.append(1, "b")
        _ = values.popFirst()
        _ = values.popFirst()
        #expect(values.isEmpty)
        #expect(!SlotValues.holdsNoValue(&values))
    }
}
