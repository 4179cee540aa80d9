namespace Salsa.DataFiles;

/// <summary>A user's file over the size a service takes (decompressed, when it was gzip): a limit, not a malformed file.</summary>
public sealed class FileTooLargeException(string message) : IOException(message);
