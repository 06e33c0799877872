import TodosApp

await TodosCommand.runMain()
