namespace Salsa.DataFiles.Tests;

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

    [Fact]
    public void FromMetadata_OfToMetadata_IsTheSameProjection()
    {
        var projection = new EquirectangularProjection(39.912345678901234, -86.312345678901234);

        var read = EquirectangularProjection.FromMetadata(projection.ToMetadata());

        Assert.NotNull(read);
        Assert.Equal(projection.OriginLatitude, read.OriginLatitude);
        Assert.Equal(projection.OriginLongitude, read.OriginLongitude);
    }

    [Theory]
    [InlineData(null, "-86.3")]
    [InlineData("39.9", null)]
    [InlineData("north", "-86.3")]
    [InlineData("95", "-86.3")]
    [InlineData("NaN", "-86.3")]
    public void FromMetadata_MissingOrInvalidOrigin_IsNull(string? latitude, string? longitude)
    {
        var metadata = new Dictionary<string, string>();
        if (latitude is not null)
        {
            metadata[EquirectangularProjection.OriginLatitudeKey] = latitude;
        }

        if (longitude is not null)
        {
            metadata[EquirectangularProjection.OriginLongitudeKey] = longitude;
        }

        Assert.Null(EquirectangularProjection.FromMetadata(metadata));
    }

    [Fact]
    public void FromMetadata_AnotherProjection_IsNull()
    {
        var metadata = new Dictionary<string, string>(new EquirectangularProjection(39.9, -86.3).ToMetadata())
        {
            [EquirectangularProjection.ProjectionKey] = "mercator",
        };

        Assert.Null(EquirectangularProjection.FromMetadata(metadata));
    }
}
