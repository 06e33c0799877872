@_exported import Swidux
