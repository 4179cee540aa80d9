using Salsa.Graphics.Native;

namespace Salsa.Graphics;

/// <summary>
/// Cairo reported a status other than success. Cairo never aborts: a failed call puts the surface
/// or context into a sticky error state, which the wrappers turn into this exception at once.
/// </summary>
public sealed class CairoException : Exception
{
    public CairoException()
        : this("Cairo reported an error.")
    {
    }

    public CairoException(string message)
        : base(message)
    {
    }

    public CairoException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public CairoException(CairoStatus status, string operation)
        : base($"{operation} failed: cairo status {status} ({Cairo.Describe(status)}).")
    {
        Status = status;
    }

    /// <summary>The status cairo reported, or <see cref="CairoStatus.Success"/> when none was given.</summary>
    public CairoStatus Status { get; }
}
