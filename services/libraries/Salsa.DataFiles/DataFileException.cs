namespace Salsa.DataFiles;

/// <summary>
/// A shipped data file that is not where it should be, or not what the manifest says it is. It is
/// a fault of the installation, not of a request; the message names the file and what to do.
/// </summary>
public sealed class DataFileException(string message, string? folder = null) : Exception(message)
{
    /// <summary>What a caller is told: the message with the data folder's path left out (the service's log has it whole).</summary>
    public string Detail => folder is { Length: > 0 } ? Message.Replace(folder, "the service's data folder (its log names it)", StringComparison.Ordinal) : Message;
}
