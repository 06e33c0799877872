import SwiduxCLI

SwiduxCommand.main()
