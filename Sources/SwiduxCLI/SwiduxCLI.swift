public enum SwiduxCLI {}
