namespace Salsa.Ccr;

/// <summary>A port whose message type is known only at run time.</summary>
public interface IPort
{
    void PostUnknownType(object item);
}
