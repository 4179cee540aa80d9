namespace Salsa.Store;

/// <summary>The schema's version, kept in the database so a later build can migrate and an older one refuses a newer file.</summary>
internal static class StoreSchema
{
    public const int Version = 2;
}
