namespace Salsa.Clustering;

/// <summary>Input an algorithm cannot run on: NaN or infinite values, mismatched dimensions, a bad K, no weight.</summary>
public sealed class ClusteringInputException : ArgumentException
{
    public ClusteringInputException()
    {
    }

    public ClusteringInputException(string message)
        : base(message)
    {
    }

    public ClusteringInputException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public ClusteringInputException(string message, string paramName)
        : base(message, paramName)
    {
    }
}
