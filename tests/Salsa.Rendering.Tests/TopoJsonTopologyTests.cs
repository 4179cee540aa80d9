using Salsa.Rendering.Atlas;

namespace Salsa.Rendering.Tests;

public sealed class TopoJsonTopologyTests
{
    // Two unit squares sharing the edge x = 2 (arc 0). The right square walks arc 2, then arc 0
    // backwards (~0 = -1). Quantized: positions are deltas, scaled by 0.5/0.25 and moved by (10, 20).
    private const string TwoSquares = """
        {
          "type": "Topology",
          "transform": { "scale": [0.5, 0.25], "translate": [10, 20] },
          "objects": {
            "squares": {
              "type": "GeometryCollection",
              "geometries": [
                { "type": "Polygon", "id": "L", "properties": { "name": "Left" }, "arcs": [[0, 1]] },
                { "type": "MultiPolygon", "id": 7, "arcs": [[[2, -1]]] },
                { "type": null, "id": "empty" }
              ]
            }
          },
          "arcs": [
            [[2, 0], [0, 4]],
            [[2, 4], [-2, 0], [0, -4], [2, 0]],
            [[2, 0], [2, 0], [0, 4], [-2, 0]]
          ]
        }
        """;

    [Fact]
    public void Parse_QuantizedArcsWithReversedReference_DecodesExactRings()
    {
        var topology = TopoJsonTopology.Parse(TwoSquares);

        var squares = topology.Features("squares");
        Assert.Equal(3, squares.Count);
        Assert.Equal(("L", "Left"), (squares[0].Id, squares[0].Name));
        Assert.Equal(
            [new(20, 11), new(21, 11), new(21, 10), new(20, 10), new(20, 11)],
            Assert.Single(squares[0].Polygons).Exterior);

        // The numeric id is kept as its text; arc 0 reversed runs from (11, 21) down to (11, 20).
        Assert.Equal(("7", null), (squares[1].Id, squares[1].Name));
        Assert.Equal(
            [new(20, 11), new(20, 12), new(21, 12), new(21, 11), new(20, 11)],
            Assert.Single(squares[1].Polygons).Exterior);
        Assert.Empty(squares[2].Polygons);
    }

    [Fact]
    public void Parse_ArcsWithoutTransform_ReadsAbsolutePositions()
    {
        const string Json = """
            {"type":"Topology","objects":{"a":{"type":"Polygon","arcs":[[0]]}},
             "arcs":[[[-86.5,39.5],[-86,39.5],[-86,40],[-86.5,39.5]]]}
            """;

        var ring = Assert.Single(Assert.Single(TopoJsonTopology.Parse(Json).Features("a")).Polygons).Exterior;

        Assert.Equal([new(39.5, -86.5), new(39.5, -86), new(40, -86), new(39.5, -86.5)], ring);
    }

    [Fact]
    public void Parse_PolygonWithHole_KeepsTheHoleApart()
    {
        const string Json = """
            {"type":"Topology","objects":{"a":{"type":"Polygon","arcs":[[0],[1]]}},
             "arcs":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[4,4],[4,6],[6,6],[6,4],[4,4]]]}
            """;

        var polygon = Assert.Single(Assert.Single(TopoJsonTopology.Parse(Json).Features("a")).Polygons);

        Assert.Equal(5, polygon.Exterior.Count);
        Assert.Equal(new GeoPoint(4, 4), Assert.Single(polygon.Holes)[0]);
        Assert.True(RingGeometry.Contains(polygon, new GeoPoint(2, 2)));
        Assert.False(RingGeometry.Contains(polygon, new GeoPoint(5, 5)));
    }

    [Theory]
    [InlineData("""{"type":"FeatureCollection"}""", "Topology")]
    [InlineData("""{"type":"Topology","objects":{}}""", "\"arcs\"")]
    [InlineData("""{"type":"Topology","objects":{"a":{"type":"Polygon","arcs":[[3]]}},"arcs":[[[0,0],[1,1]]]}""", "refers to arc 3")]
    [InlineData("""{"type":"Topology","objects":{"a":{"type":"Polygon","arcs":[[-5]]}},"arcs":[[[0,0],[1,1]]]}""", "refers to arc -5")]
    [InlineData("""{"type":"Topology","objects":{"a":{"type":"LineString","arcs":[0]}},"arcs":[[[0,0],[1,1]]]}""", "LineString")]
    [InlineData("""{"type":"Topology","objects":{},"arcs":[[[0,0],["x",1]]]}""", "arc 0 position 1")]
    [InlineData("""{"type":"Topology",""", "not valid JSON")]
    public void Parse_MalformedTopology_ThrowsInvalidDataWithTheReason(string json, string expected)
    {
        var error = Assert.Throws<InvalidDataException>(() => TopoJsonTopology.Parse(json, "test.json"));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
        Assert.StartsWith("test.json", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Features_UnknownObject_NamesTheObjectsThereAre()
    {
        var error = Assert.Throws<KeyNotFoundException>(() => TopoJsonTopology.Parse(TwoSquares).Features("states"));

        Assert.Contains("'squares'", error.Message, StringComparison.Ordinal);
    }
}
