import TodosApp
