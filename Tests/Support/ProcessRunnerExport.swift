@_exported import ProcessRunner
