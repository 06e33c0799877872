import Foundation
import SwiduxTestSupport

/// The many-writers model test's other process: `python3` with its `sqlite3` module, a plain
/// SQL writer that knows nothing of Swidux (as another app, a script or a sync tool would
/// be). Each ``step(path:seed:newID:output:)`` runs one process and one transaction, with
/// foreign keys on: it deletes a list (its items and tags cascade), adds an item to a list,
/// updates an item, or deletes a tag — chosen from what the file holds.
enum ProcessWriter {
    struct Done {
        var deletedList: Int?
        var deletedTag: Int?
        var addedItem: (id: Int, list: Int)?
    }

    static let script = #"""
import random, sqlite3, sys
path, seed, new_id = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
db = sqlite3.connect(path, timeout=30, isolation_level=None)
db.execute("PRAGMA foreign_keys = ON")
db.execute("BEGIN IMMEDIATE")
lists = [r[0] for r in db.execute("SELECT id FROM mwList ORDER BY id")]
items = [r[0] for r in db.execute("SELECT id FROM mwItem ORDER BY id")]
tags = [r[0] for r in db.execute("SELECT id FROM mwTag ORDER BY id")]
op = rng.randrange(4)
if op == 0 and lists:
    victim = rng.choice(lists)
    db.execute("DELETE FROM mwList WHERE id = ?", (victim,))
    print("deleted-list", victim)
elif op == 1 and lists:
    parent = rng.choice(lists)
    db.execute("INSERT INTO mwItem (id, position, listId, title, done) VALUES (?, 1000000, ?, ?, 0)",
               (new_id, parent, "from the process"))
    print("added-item", new_id, parent)
elif op == 2 and items:
    target = rng.choice(items)
    db.execute("UPDATE mwItem SET title = 'process ' || ?, done = NOT done WHERE id = ?", (new_id, target))
    print("updated-item", target)
elif tags:
    victim = rng.choice(tags)
    db.execute("DELETE FROM mwTag WHERE id = ?", (victim,))
    print("deleted-tag", victim)
db.execute("COMMIT")
"""#

    static func step(path: String, seed: UInt64, newID: Int, output: String) async throws -> Done {
        let status = try await ChildProcess.run(["/usr/bin/env", "python3", "-c", script, path, "\(seed % 1_000_000_007)", "\(newID)"], output: output)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw ProcessFailure("the SQL writer process failed (\(status)): \(text)") }
        var done = Done()
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        switch words.first {
        case "deleted-list": done.deletedList = Int(words[1])
        case "deleted-tag": done.deletedTag = Int(words[1])
        case "added-item": done.addedItem = (Int(words[1])!, Int(words[2])!)
        default: break
        }
        return done
    }

    struct ProcessFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
