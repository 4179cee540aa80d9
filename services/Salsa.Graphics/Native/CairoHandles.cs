using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Salsa.Graphics.Native;

/// <summary>
/// A <c>cairo_surface_t*</c>. A surface that writes through a callback also owns the
/// <see cref="GCHandle"/> the callback reaches its stream by: cairo may still write when it
/// finishes the surface, so the surface is finished before the handle is freed.
/// </summary>
internal sealed class SurfaceHandle : SafeHandleZeroOrMinusOneIsInvalid
{
    private GCHandle _writeTarget;

    public SurfaceHandle()
        : base(ownsHandle: true)
    {
    }

    /// <summary>Keeps <paramref name="target"/> alive for as long as cairo may call back into it.</summary>
    internal void OwnWriteTarget(GCHandle target) => _writeTarget = target;

    protected override bool ReleaseHandle()
    {
        if (_writeTarget.IsAllocated)
        {
            // Another reference (a context not yet released) could keep the surface alive past
            // this point; finishing now means cairo never calls back into a freed GCHandle.
            Cairo.SurfaceFinish(handle);
            _writeTarget.Free();
        }

        Cairo.SurfaceDestroy(handle);
        return true;
    }
}

/// <summary>A <c>cairo_t*</c>; holds its own reference to its target surface.</summary>
internal sealed class ContextHandle : SafeHandleZeroOrMinusOneIsInvalid
{
    public ContextHandle()
        : base(ownsHandle: true)
    {
    }

    protected override bool ReleaseHandle()
    {
        Cairo.Destroy(handle);
        return true;
    }
}
