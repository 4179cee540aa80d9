namespace Salsa.Rendering.Drawing;

/// <summary>Text size as laid out: advance width and the font's line height (ascent + descent).</summary>
public readonly record struct TextSize(double Width, double Height);
