import SwiduxCLI
