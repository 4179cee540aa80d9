namespace Salsa.Rendering.Drawing;

/// <summary>Ends a clip started by <see cref="Canvas.ClipTo"/> when disposed.</summary>
public readonly struct ClipScope : IDisposable
{
    private readonly Canvas? _canvas;

    internal ClipScope(Canvas canvas) => _canvas = canvas;

    public void Dispose() => _canvas?.EndClip();
}
