import Swidux
