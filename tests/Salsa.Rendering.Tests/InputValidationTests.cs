using Salsa.DataFiles;
using Salsa.Rendering.Maps;
using Salsa.Rendering.Scatter;

namespace Salsa.Rendering.Tests;

public sealed class InputValidationTests
{
    private static readonly GeoPoint[] ThreePoints = [new(40, -86), new(41, -86), new(40, -85)];
    private static readonly GeographicCentres TwoCentres = new([new(40, -86), new(41, -85)]);

    public static TheoryData<Func<object>, string> BadMapInputs => new()
    {
        { () => new ClusteredPoints(ThreePoints, [1, 2], [0, 0, 1], TwoCentres), "3 points but 2 weights" },
        { () => new ClusteredPoints(ThreePoints, [1, 2, 3], [0, 1], TwoCentres), "3 points but 2 cluster assignments" },
        { () => new ClusteredPoints(ThreePoints, [1, 2, 3], [0, 2, 1], TwoCentres), "Point 1 is assigned to cluster 2, but there are 2 clusters (0..1)" },
        { () => new ClusteredPoints(ThreePoints, [1, 2, 3], [0, -1, 1], TwoCentres), "Point 1 is assigned to cluster -1" },
        { () => new ClusteredPoints([new(40, -86), new(double.NaN, -86), new(40, -85)], [1, 2, 3], [0, 0, 1], TwoCentres), "Position 1 (NaN, -86) has a NaN or infinite coordinate" },
        { () => new ClusteredPoints([new(40, -86), new(95, -86), new(40, -85)], [1, 2, 3], [0, 0, 1], TwoCentres), "Position 1 (95, -86) is not a latitude" },
        { () => new ClusteredPoints(ThreePoints, [1, -2, 3], [0, 0, 1], TwoCentres), "Weight 1 is -2" },
        { () => new ClusteredPoints(ThreePoints, [1, 2, 3], [0, 0, 1], TwoCentres, [5]), "2 clusters but 1 cluster populations" },
        { () => new ClusteredPoints(ThreePoints, [1, 2, 3], [0, 0, 0], new GeographicCentres([])), "no cluster centres" },
        { () => new GeographicCentres([new(40, double.PositiveInfinity)]), "Position 0 (40, Infinity) has a NaN or infinite coordinate" },
        { () => new PlanarCentres(new EquirectangularProjection(40, -86), [1, 2, 3]), "3 numbers were given" },
        { () => new PlanarCentres(new EquirectangularProjection(40, -86), [1, double.NaN]), "Centre 0 has a NaN or infinite y coordinate" },
    };

    public static TheoryData<Func<object>, string> BadScatterInputs => new()
    {
        { () => new ScatterData([1, 2, 3]), "3 numbers were given" },
        { () => new ScatterData([1, 2, double.NaN, 4]), "Point 1 has a NaN or infinite x coordinate" },
        { () => new ScatterData([1, 2, 3, 4], [0]), "2 points but 1 clusters" },
        { () => new ScatterData([1, 2, 3, 4], [0, -3]), "Point 1 is in cluster -3" },
        { () => new ScatterData([1, 2, 3, 4], null, [new(2, "x")]), "Label 'x' names point 2, but there are 2 points (0..1)" },
        { () => ScatterData.FromColumns([1, 2], [1]), "2 x values but 1 y values" },
        { () => ScatterRenderer.RenderSvg(new ScatterData([1, 2, 3, 4], [0, 2]), new ScatterOptions { ClusterColors = [Salsa.Rendering.Drawing.Color.Black] }), "3 clusters but options.ClusterColors has 1 colours" },
    };

    [Theory]
    [MemberData(nameof(BadMapInputs))]
    public void ClusteredPoints_BadInput_ThrowsArgumentExceptionSayingWhat(Func<object> create, string expected)
    {
        var error = Assert.ThrowsAny<ArgumentException>(() => create());

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(BadScatterInputs))]
    public void ScatterData_BadInput_ThrowsArgumentExceptionSayingWhat(Func<object> create, string expected)
    {
        var error = Assert.ThrowsAny<ArgumentException>(() => create());

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0, 600, "Width")]
    [InlineData(800, 20_000, "Height")]
    public void RenderPng_BadSize_ThrowsNamingTheOption(int width, int height, string option)
    {
        var data = new ClusteredPoints(ThreePoints, [1, 2, 3], [0, 0, 1], TwoCentres);

        var error = Assert.Throws<ArgumentOutOfRangeException>(() => CensusMapRenderer.RenderPng(data, new CensusMapOptions { Width = width, Height = height }));

        Assert.Equal(option, error.ParamName);
    }

    [Fact]
    public void RenderPng_BadMargin_ThrowsNamingTheOption()
    {
        var data = new ClusteredPoints(ThreePoints, [1, 2, 3], [0, 0, 1], TwoCentres);

        var error = Assert.Throws<ArgumentOutOfRangeException>(() => CensusMapRenderer.RenderSvg(data, new CensusMapOptions { Margin = double.NaN }));

        Assert.Equal("Margin", error.ParamName);
    }

    [Fact]
    public void RenderPng_TinyClustering_DrawsWithAClusterThatHasNoPoints()
    {
        var data = new ClusteredPoints(ThreePoints, [1, 2, 3], [0, 0, 0], TwoCentres);

        var png = CensusMapRenderer.RenderPng(data, new CensusMapOptions { Width = 400, Height = 300 });

        Assert.Equal((400, 300), PngImage.ReadSize(png));
    }
}
