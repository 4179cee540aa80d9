using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;

namespace Salsa.Graphics.Native;

/// <summary>
/// Cairo's <c>cairo_write_func_t</c> over a .NET <see cref="Stream"/>. Cairo passes the closure
/// back untouched, so it carries a <see cref="GCHandle"/> to this sink. An exception must not
/// cross the native frame (it would end the process), so it is kept and rethrown by the caller
/// once cairo has returned.
/// </summary>
internal sealed unsafe class StreamWriteCallback(Stream stream)
{
    private readonly Stream _stream = stream;
    private ExceptionDispatchInfo? _error;

    public static delegate* unmanaged<nint, byte*, uint, CairoStatus> Pointer => &Write;

    /// <summary>Rethrows the stream's own exception, if writing failed: it says more than cairo's status.</summary>
    public void ThrowIfFailed() => _error?.Throw();

    [UnmanagedCallersOnly]
    private static CairoStatus Write(nint closure, byte* data, uint length)
    {
        var sink = (StreamWriteCallback)GCHandle.FromIntPtr(closure).Target!;
        if (sink._error is not null)
        {
            return CairoStatus.WriteError;
        }

        try
        {
            sink._stream.Write(new ReadOnlySpan<byte>(data, checked((int)length)));
            return CairoStatus.Success;
        }
#pragma warning disable CA1031 // Every exception must stop here: none may unwind into cairo.
        catch (Exception e)
#pragma warning restore CA1031
        {
            sink._error = ExceptionDispatchInfo.Capture(e);
            return CairoStatus.WriteError;
        }
    }
}
