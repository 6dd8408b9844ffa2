/**
 * The logged-in chrome: left menu, top-bar dropdown and the logout dialog. Loaded on demand so the
 * login page does not pay for Menu, NavLink, ScrollArea and Modal.
 */
import { Box, Button, Divider, Menu, NavLink, ScrollArea } from '@mantine/core';
import { Link, useNavigate } from '@tanstack/react-router';
import { shellText } from '../i18n';
import type { MenuEntry } from './menu';

export { LogoutDialog } from './LogoutDialog';

export function LeftNav(props: { entries: MenuEntry[]; pathname: string; autoExpand: boolean; onAction: (id: 'log' | 'logout') => void }) {
  return (
    <ScrollArea h="100%" type="auto">
      <LeftMenu {...props} />
    </ScrollArea>
  );
}

function LeftMenu(props: { entries: MenuEntry[]; pathname: string; autoExpand: boolean; onAction: (id: 'log' | 'logout') => void }) {
  return (
    <Box py="xs" data-testid="menu-items">
      {props.entries.map((e) => {
        switch (e.kind) {
          case 'divider':
            return <Divider key={e.id} my={4} />;
          case 'link':
            return (
              <NavLink
                key={e.id}
                component={Link}
                to={e.to}
                label={shellText(e.label)}
                active={props.pathname === e.to}
                data-menu={e.id}
              />
            );
          case 'action':
            return <NavLink key={e.id} component="button" label={shellText(e.label)} onClick={() => props.onAction(e.id)} data-menu={e.id} />;
          case 'group':
            return (
              <NavLink
                key={e.id}
                label={shellText(e.label)}
                data-menu={e.id}
                defaultOpened={props.autoExpand || e.children.some((c) => c.to === props.pathname)}
                childrenOffset={20}
              >
                {e.children.map((c) => (
                  <NavLink
                    key={c.id}
                    component={Link}
                    to={c.to}
                    label={shellText(c.label)}
                    active={props.pathname === c.to}
                    data-menu={c.id}
                  />
                ))}
              </NavLink>
            );
        }
      })}
    </Box>
  );
}

export function TopMenu(props: { entries: MenuEntry[]; onAction: (id: 'log' | 'logout') => void }) {
  const navigate = useNavigate();
  return (
    <Menu shadow="md" width={220} position="bottom-start">
      <Menu.Target>
        <Button variant="white" data-testid="top-menu" aria-label={shellText('menu.open')}>
          ☰ {shellText('menu.open')}
        </Button>
      </Menu.Target>
      <Menu.Dropdown data-testid="top-menu-dropdown">
        {props.entries.map((e) => {
          switch (e.kind) {
            case 'divider':
              return <Menu.Divider key={e.id} />;
            case 'link':
              return (
                <Menu.Item key={e.id} data-menu={e.id} onClick={() => void navigate({ to: e.to })}>
                  {shellText(e.label)}
                </Menu.Item>
              );
            case 'action':
              return (
                <Menu.Item key={e.id} data-menu={e.id} onClick={() => props.onAction(e.id)}>
                  {shellText(e.label)}
                </Menu.Item>
              );
            case 'group':
              return (
                <Box key={e.id} data-menu={e.id}>
                  <Menu.Label>{shellText(e.label)}</Menu.Label>
                  {e.children.map((c) => (
                    <Menu.Item key={c.id} data-menu={c.id} pl="lg" onClick={() => void navigate({ to: c.to })}>
                      {shellText(c.label)}
                    </Menu.Item>
                  ))}
                </Box>
              );
          }
        })}
      </Menu.Dropdown>
    </Menu>
  );
}

