// Hardware
