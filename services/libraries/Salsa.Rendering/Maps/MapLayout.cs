using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Maps;

/// <summary>Where everything of a census map goes: the canvas size and its map panels.</summary>
public sealed class MapLayout
{
    private readonly int[] _panelOfRegion;

    internal MapLayout(int width, int height, IReadOnlyList<MapPanel> panels, bool showsCounties)
    {
        (Width, Height, Panels, ShowsCounties) = (width, height, panels, showsCounties);
        _panelOfRegion = [.. UsRegions.All.Select(r => Math.Max(0, panels.ToList().FindIndex(p => p.Region == r)))];
    }

    public int Width { get; }

    public int Height { get; }

    /// <summary>The main view first, then the insets.</summary>
    public IReadOnlyList<MapPanel> Panels { get; }

    public bool ShowsCounties { get; }

    /// <summary>The panel a position is drawn in: its part of the US's inset, else the main view.</summary>
    public MapPanel PanelFor(GeoPoint position) =>
        Panels[0].Region is null ? Panels[0] : Panels[_panelOfRegion[(int)UsRegions.Of(position)]];

    /// <summary>Where <paramref name="position"/> is drawn; false when its panel does not show it.</summary>
    public bool TryLocate(GeoPoint position, out Point canvasPoint)
    {
        var panel = PanelFor(position);
        canvasPoint = panel.ToCanvas(position);
        return panel.Contains(canvasPoint);
    }
}
