namespace Salsa.Datasets.Tests;

public sealed class EquirectangularProjectionTests
{
    [Fact]
    public void Forward_OneDegreeOfLatitude_IsAbout111Km()
    {
        var projection = new EquirectangularProjection(39.9, -86.3);

        var (x, y) = projection.Forward(40.9, -86.3);

        Assert.Equal(0, x, 9);
        Assert.Equal(111.195, y, 3);
    }

    [Fact]
    public void Forward_OneDegreeOfLongitude_ShrinksWithCosineOfOriginLatitude()
    {
        var projection = new EquirectangularProjection(60, 0);

        var (x, _) = projection.Forward(60, 1);

        Assert.Equal(111.195 / 2, x, 3);
    }

    [Fact]
    public void Inverse_OfForward_ReturnsThePoint()
    {
        var projection = new EquirectangularProjection(39.9, -86.3);

        var (x, y) = projection.Forward(41.2345, -84.9876);
        var (lat, lon) = projection.Inverse(x, y);

        Assert.Equal(41.2345, lat, 10);
        Assert.Equal(-84.9876, lon, 10);
    }

    [Fact]
    public void CentredOn_IndianaFixture_LiesInsideTheState()
    {
        var projection = EquirectangularProjection.CentredOn(CensusBlockGroups.ReadFile(CensusBlockGroups.IndianaFixturePath));

        Assert.InRange(projection.OriginLatitude, 39.0, 41.0);
        Assert.InRange(projection.OriginLongitude, -87.5, -85.5);
    }

    [Fact]
    public void Constructor_PolarOrigin_IsRejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new EquirectangularProjection(90, 0));
    }
}
