namespace Salsa.Graphics.Charts;

/// <summary>Pixel snapping: a 1-unit line centred on a half unit covers whole pixels and looks sharp.</summary>
internal static class Crisp
{
    public static double Line(double coordinate) => Math.Floor(coordinate) + 0.5;
}
